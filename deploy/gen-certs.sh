#!/bin/sh
# Development certificates and tokens for menagerie-server: a throwaway CA,
# a server certificate, a client certificate (mutual TLS) and bearer tokens.
#
#   deploy/gen-certs.sh [OUT_DIR] [NAME...]
#
# OUT_DIR defaults to deploy/certs (git-ignored). The server certificate
# names NAME... (host names or IP addresses); the default suits
# deploy/compose.yaml: localhost 127.0.0.1 menagerie-1 menagerie-2 menagerie-3.
# For Kubernetes, name the Services, e.g.
#   deploy/gen-certs.sh /tmp/menagerie-certs menagerie menagerie-headless \
#       menagerie.default.svc menagerie-headless.default.svc localhost 127.0.0.1
#
# Writes: ca.pem ca.key server.pem server.key client.pem client.key
#         tokens (the server's name:token lines), client.token, healthcheck.token
#
# The files are readable by every local user so that the container's user
# (uid 10001) can read them through a bind mount: they are for development
# only. In production use your own CA (or cert-manager) and Secrets.
set -eu

out=${1:-deploy/certs}
[ $# -gt 0 ] && shift
[ $# -eq 0 ] && set -- localhost 127.0.0.1 menagerie-1 menagerie-2 menagerie-3

san=""
for name in "$@"; do
    case $name in
        *[!0-9.:a-fA-F]* ) entry="DNS:$name" ;;
        * ) entry="IP:$name" ;;
    esac
    san="${san:+$san,}$entry"
done

mkdir -p "$out"
cd "$out"
days=365
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

key ca.key
openssl req -x509 -new -key ca.key -sha256 -days "$days" -subj "/CN=menagerie development CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out ca.pem

# issue NAME SUBJECT EXTENSIONS
issue() {
    key "$1.key"
    openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
    printf '%s\n' "$3" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days "$days" \
        -extfile "$1.ext" -out "$1.pem" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
}
issue server menagerie-server "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=$san"
issue client menagerie-client "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth"
rm -f ca.srl

client=$(openssl rand -hex 24)
health=$(openssl rand -hex 24)
printf '# name:token, one per line (menagerie-server --auth-tokens-file)\nclient:%s\nhealthcheck:%s\n' \
    "$client" "$health" > tokens
printf '%s\n' "$client" > client.token
printf '%s\n' "$health" > healthcheck.token

chmod 0644 ./*
echo "wrote $(pwd): CA, server certificate for $san, client certificate, tokens"
