/*
 * A self-signed certificate for 127.0.0.1 and localhost, made with the
 * `openssl` command in a temporary directory: a test server presents it,
 * and a client trusts it by its file or its SHA-256 fingerprint.
 *
 * const cert = makeTestCert(t);
 * startSMTPServer({ starttls: true, tls: { key: cert.key, cert: cert.cert } });
 */
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";

/** A certificate, its key, the file holding it, and its SHA-256 fingerprint. */
export interface TestCert {
  key: string;
  cert: string;
  /** The certificate's PEM file, to pass as a CA file. */
  certFile: string;
  /** `AB:CD:…`, as `openssl x509 -noout -fingerprint -sha256` prints it. */
  sha256: string;
}

/** Makes a self-signed P-256 certificate valid for a day, for the names `subjectAltName` lists; removed after the test. */
export function makeTestCert(t: TestContext, commonName = "localhost", subjectAltName = "DNS:localhost,IP:127.0.0.1"): TestCert {
  const dir = mkdtempSync(join(tmpdir(), "latch-cert-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1"]
      .concat(["-subj", `/CN=${commonName}`, "-addext", `subjectAltName=${subjectAltName}`])
      .concat(["-keyout", keyFile, "-out", certFile]),
    { stdio: "ignore" },
  );
  const cert = readFileSync(certFile, "utf8");
  return { key: readFileSync(keyFile, "utf8"), cert, certFile, sha256: new X509Certificate(cert).fingerprint256 };
}
