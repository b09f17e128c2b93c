#!/usr/bin/env sh
# The report test opens the HTML report in a real browser: Debian's chromium, headless. Installed
# here (npm's pretest) when missing, so `npm ci && npm test` works on a fresh machine; nothing is
# downloaded at run time by the tool itself.
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: chromium is missing and cannot be installed here (needs root and apt-get); the browser test will fail" >&2
  exit 0
fi
echo "ensure-chromium: installing chromium (Debian package) for the report's browser test" >&2
apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
