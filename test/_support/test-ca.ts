/*
 * A certificate authority made for the test run, and a server certificate
 * it signs for `localhost`, 127.0.0.1 and ::1: what an https peer needs
 * (a metadata document server, a client the authorization server fetches).
 * Node cannot sign X.509 certificates itself, so `openssl` (on PATH) makes
 * them once per process, in a temporary directory removed at once. A client
 * trusts the server by taking `ca` as an extra root; nothing else trusts it.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The test CA's certificate and a server key and certificate it signed, all PEM. */
export interface TestCA {
  /** The CA certificate: the root a client adds to trust `cert`. */
  ca: string;
  /** The server's private key. */
  key: string;
  /** The server's certificate: localhost, 127.0.0.1 and ::1. */
  cert: string;
}

let made: TestCA | undefined;

/** Returns the run's test CA and server certificate, made on first use. */
export function testCA(): TestCA {
  made ??= makeCA();
  return made;
}

function makeCA(): TestCA {
  const dir = mkdtempSync(join(tmpdir(), "latch-ca-"));
  const file = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  };
  try {
    openssl(
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=latch test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign",
      "-keyout",
      file("ca.key"),
      "-out",
      file("ca.pem"),
    );
    openssl(
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-subj",
      "/CN=localhost",
      "-keyout",
      file("server.key"),
      "-out",
      file("server.csr"),
    );
    writeFileSync(
      file("server.ext"),
      "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n",
    );
    openssl(
      "x509",
      "-req",
      "-in",
      file("server.csr"),
      "-CA",
      file("ca.pem"),
      "-CAkey",
      file("ca.key"),
      "-CAcreateserial",
      "-days",
      "2",
      "-extfile",
      file("server.ext"),
      "-out",
      file("server.pem"),
    );
    return {
      ca: readFileSync(file("ca.pem"), "utf8"),
      key: readFileSync(file("server.key"), "utf8"),
      cert: readFileSync(file("server.pem"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
