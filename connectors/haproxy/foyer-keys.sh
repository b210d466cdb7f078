#!/bin/sh
# Writes the ES256 keys of Foyer's JWKS for haproxy.cfg: DIR/key1.pem .. key3.pem (the
# newest three; a slot without a key repeats the first) and DIR/kids.map (kid -> slot), then,
# if anything changed and a reload command is given, runs it. Needs curl, jq and openssl.
#   foyer-keys.sh https://queue.example.com/.well-known/jwks.json /etc/haproxy/foyer 'systemctl reload haproxy'
set -eu
jwks_url=$1 dir=$2 reload=${3:-}
# The keys decide who enters: their directory is this user's, and nobody else may write in it.
(umask 022 && mkdir -p "$dir")
if [ -L "$dir" ] || [ ! -O "$dir" ] || [ -n "$(find "$dir" -maxdepth 0 -perm /022)" ]; then
  echo "foyer-keys: $dir must be a directory of this user's that group and others cannot write" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# At most 64 KiB, read within 5 s: the reading stops at one byte more, whatever the answer's size.
{ curl -fsS --max-time 5 "$jwks_url" || : > "$tmp/failed"; } | head -c 65537 > "$tmp/jwks.json"
if [ "$(wc -c < "$tmp/jwks.json")" -gt 65536 ]; then
  echo "foyer-keys: the JWKS of $jwks_url is larger than 64 KiB" >&2
  exit 1
fi
[ ! -e "$tmp/failed" ] || exit 1

# base64url (unpadded) to bytes.
unb64url() { s=$(printf %s "$1" | tr '_-' '/+'); while [ $(( ${#s} % 4 )) -ne 0 ]; do s="$s="; done; printf %s "$s" | base64 -d; }

slot=0
: > "$tmp/kids.map"
jq -r '.keys[] | select(.kty == "EC" and .crv == "P-256" and (.use // "sig") == "sig") | "\(.kid) \(.x) \(.y)"' \
  "$tmp/jwks.json" | tail -n 3 > "$tmp/es256"
while read -r kid x y; do
  slot=$((slot + 1))
  # SubjectPublicKeyInfo of the uncompressed point 04 || x || y.
  { printf '\060\131\060\023\006\007\052\206\110\316\075\002\001\006\010\052\206\110\316\075\003\001\007\003\102\000\004'
    unb64url "$x"; unb64url "$y"; } > "$tmp/key.der"
  openssl pkey -pubin -inform DER -in "$tmp/key.der" -out "$tmp/key$slot.pem"
  echo "$kid $slot" >> "$tmp/kids.map"
done < "$tmp/es256"
if [ "$slot" -eq 0 ]; then
  echo "foyer-keys: no ES256 key in $jwks_url (run foyer keygen --alg ES256)" >&2
  exit 1
fi
for s in 1 2 3; do [ -f "$tmp/key$s.pem" ] || cp "$tmp/key1.pem" "$tmp/key$s.pem"; done

changed=0
for f in key1.pem key2.pem key3.pem kids.map; do
  if ! cmp -s "$tmp/$f" "$dir/$f"; then cp "$tmp/$f" "$dir/$f.new" && mv "$dir/$f.new" "$dir/$f"; changed=1; fi
done
if [ "$changed" -eq 1 ] && [ -n "$reload" ]; then sh -c "$reload"; fi
