#!/usr/bin/env bash
# System packages. `make test`: PostgreSQL (the concurrency tests), Debian's Chromium (the browser tests),
# nginx (the proxy in front of several processes, deploy/nginx.conf), the system's Python (the engine box's
# tests) and a Chinese font. `make run` /
# `make venue` (--run): only the Chinese font, which the PDF sheets embed (WeasyPrint finds it through
# fontconfig; its other libraries, pango and harfbuzz, are on Debian already).
# Installs what is missing with apt when it can (root on Debian); otherwise says what to install: for the
# tests that is an error, for running the system only a warning (the PDFs then lack Chinese glyphs).
set -euo pipefail

mode=test
[ "${1:-}" = "--run" ] && mode=run

need=()
if [ "$mode" = test ]; then
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
    command -v chromium >/dev/null 2>&1 || need+=(chromium)
    [ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || need+=(nginx-light)  # deploy/nginx.conf's tests
    # The system's Python: the hostile engines of the box's tests run under it, as an engine author's script
    # would (a boxed engine cannot read the project's virtualenv).
    [ -x /usr/bin/python3 ] || need+=(python3-minimal)
fi
fc-list 2>/dev/null | grep -qi "WenQuanYi\|Noto Sans CJK" || need+=(fonts-wqy-microhei)  # Chinese in PDFs, screenshots
fc-list 2>/dev/null | grep -qi "DejaVu Sans" || need+=(fonts-dejavu-core)  # Latin, digits and ½ in PDFs
ldconfig -p 2>/dev/null | grep -q "libpango-1.0" || need+=(libpango-1.0-0 libpangoft2-1.0-0)  # WeasyPrint
[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
elif [ "$mode" = run ]; then
    echo "warning: missing system packages: ${need[*]} (PDF sheets need them; install them with your package manager)" >&2
else
    echo "missing system packages: ${need[*]} (install them with your package manager)" >&2
    exit 1
fi
