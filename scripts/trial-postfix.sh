#!/usr/bin/env bash
# The manual Postfix trial (lib/mail/README.md "A real Postfix"): the demo
# signs a person in through a stock Debian Postfix that offers STARTTLS with
# a certificate of its own CA, once told that CA (SMTP_CA); without it the
# send is refused and the log names the setting; pinning the certificate
# (SMTP_CERT_SHA256) works too.
#
# Needs root and apt-get (Debian): it installs postfix and openssl, makes a
# CA and a certificate for mail.test, adds a submission service on
# 127.0.0.1:2587 (STARTTLS required, loopback clients only) delivering to
# the local mailbox /var/mail/latchtrial, and starts Postfix. Not part of
# `npm test`; run after `npm run build`, from the repository:
#   sudo scripts/trial-postfix.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SUBMISSION=127.0.0.1:2587
PORT="${TRIAL_PORT:-18080}"
ORIGIN="http://localhost:$PORT"
MAILBOX_USER=latchtrial
MAILBOX=/var/mail/$MAILBOX_USER
ADDRESS=$MAILBOX_USER@mail.test

[ "$(id -u)" -eq 0 ] || { echo "trial: run as root (it installs and configures Postfix)" >&2; exit 1; }
[ -f dist/examples/demo/main.js ] || { echo "trial: run npm run build first" >&2; exit 1; }
step() { echo "trial: $*"; }

if ! command -v postfix >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1; then
  step "installing postfix (Local only, mail name mail.test) and openssl"
  printf '%s\n' "postfix postfix/main_mailer_type select Local only" "postfix postfix/mailname string mail.test" |
    debconf-set-selections
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postfix openssl >/dev/null
fi

work="$(mktemp -d)"
demo_pid=""
cleanup() {
  local status=$?
  [ "$status" -eq 0 ] || [ ! -f "$work/demo.log" ] || tail -n 20 "$work/demo.log" >&2
  [ -z "$demo_pid" ] || kill "$demo_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

step "a CA, and a certificate it signs for mail.test and 127.0.0.1"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=latch trial CA" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=mail.test" \
  -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" \
  "subjectAltName=DNS:mail.test,IP:127.0.0.1" >"$work/server.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 30 \
  -extfile "$work/server.ext" -out "$work/server.pem" 2>/dev/null
install -d -m 0755 /etc/postfix/latch-trial
install -m 0644 "$work/server.pem" /etc/postfix/latch-trial/cert.pem
install -m 0600 "$work/server.key" /etc/postfix/latch-trial/key.pem
fingerprint="$(openssl x509 -noout -fingerprint -sha256 -in "$work/server.pem" | cut -d= -f2)"

step "Postfix: mail.test, its certificate, submission on $SUBMISSION, mailbox $MAILBOX"
id "$MAILBOX_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$MAILBOX_USER"
postconf -e myhostname=mail.test mydestination="mail.test, localhost" inet_interfaces=loopback-only \
  smtpd_tls_cert_file=/etc/postfix/latch-trial/cert.pem smtpd_tls_key_file=/etc/postfix/latch-trial/key.pem \
  smtpd_tls_security_level=may smtpd_tls_received_header=yes maillog_file=/var/log/postfix.log
postconf -M "$SUBMISSION/inet=$SUBMISSION inet n - n - - smtpd"
postconf -P "$SUBMISSION/inet/syslog_name=postfix/submission" "$SUBMISSION/inet/smtpd_tls_security_level=encrypt" \
  "$SUBMISSION/inet/smtpd_client_restrictions=permit_mynetworks,reject"
if postfix status >/dev/null 2>&1; then postfix reload; else postfix start; fi
: >"$MAILBOX" 2>/dev/null || true
chown "$MAILBOX_USER":mail "$MAILBOX" && chmod 0660 "$MAILBOX"

# Starts the demo with the given extra environment (SMTP_CA=... or SMTP_CERT_SHA256=...), on a fresh state directory.
start_demo() {
  rm -rf "$work/state" "$work/demo.log"
  env PORT="$PORT" ORIGIN="$ORIGIN" STATE_DIRECTORY="$work/state" INSTANCE_KEY="$(openssl rand -base64 32)" \
    SMTP_URL="smtp://$SUBMISSION" "$@" node dist/examples/demo/main.js >"$work/demo.log" 2>&1 &
  demo_pid=$!
  for _ in $(seq 50); do
    curl -fs -o /dev/null "$ORIGIN/" && return 0
    sleep 0.2
  done
  cat "$work/demo.log" >&2
  echo "trial: the demo did not start" >&2
  exit 1
}
stop_demo() {
  kill "$demo_pid"
  wait "$demo_pid" 2>/dev/null || true
  demo_pid=""
}
# POST /signin for $ADDRESS from the cookie jar $1; prints the status code and the Location.
ask() {
  curl -s -o /dev/null -w '%{http_code} %{redirect_url}\n' -c "$1" -b "$1" -H "Origin: $ORIGIN" \
    --data-urlencode "email=$ADDRESS" "$ORIGIN/signin"
}
# Waits for the mailbox to hold one more message than $1; prints the sign-in link of the newest one.
read_link() {
  for _ in $(seq 100); do
    [ "$(grep -c '^From ' "$MAILBOX" || true)" -gt "$1" ] && break
    sleep 0.2
  done
  # The text part is quoted-printable: undo soft line breaks and =XX, then take the newest link.
  node -e '
    const mbox = require("node:fs").readFileSync(process.argv[1], "latin1");
    const text = mbox.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    const links = text.match(/https?:\/\/[^\s"<>]+\/auth\/verify\?[^\s"<>]+/g) ?? [];
    if (links.length === 0) process.exit(1);
    console.log(links[links.length - 1]);
  ' "$MAILBOX"
}
# Signs in from a fresh jar by the emailed link and checks /account names $ADDRESS.
sign_in() {
  local jar="$work/jar" count link account
  rm -f "$jar"
  count="$(grep -c '^From ' "$MAILBOX" || true)"
  step "POST /signin: $(ask "$jar")"
  link="$(read_link "$count")" || { echo "trial: no mail arrived" >&2; tail -n 20 /var/log/postfix.log >&2; exit 1; }
  step "mail arrived in $MAILBOX: $(tac "$MAILBOX" | grep -m1 -o 'using TLSv1\.[0-9][^)]*' || echo 'no TLS in Received')"
  step "GET the link: $(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -c "$jar" -b "$jar" "$link")"
  account="$(curl -s -c "$jar" -b "$jar" "$ORIGIN/account")"
  grep -q "data-subject=\"$ADDRESS\"" <<<"$account" || { echo "trial: /account does not name $ADDRESS" >&2; exit 1; }
  step "GET /account: signed in as $(grep -o 'data-subject="[^"]*"' <<<"$account")"
}

step "1. told its CA (SMTP_CA=ca.pem)"
start_demo SMTP_CA="$work/ca.pem"
sign_in
stop_demo

step "2. not told (no SMTP_CA): the send is refused"
start_demo
outcome="$(ask "$work/jar-refused")"
step "POST /signin: $outcome"
[ "${outcome%% *}" = 503 ] || { echo "trial: expected 503" >&2; exit 1; }
# The refusal names the certificate error and the way to trust it (lib/mail/connection.ts).
grep -o 'mail: TLS handshake[^"\]*' "$work/demo.log" | head -n 1 | sed 's/^/trial: log: /'
grep -q 'certificate is not trusted.*caFile' "$work/demo.log" || { echo "trial: the log names no certificate error" >&2; exit 1; }
stop_demo

step "3. pinned (SMTP_CERT_SHA256=$fingerprint)"
start_demo SMTP_CERT_SHA256="$fingerprint"
sign_in
stop_demo

step "passed: signed in through Postfix with its CA, refused without it, signed in with the pin"
