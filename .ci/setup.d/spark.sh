#!/usr/bin/env bash
# Java for the Spark tests of the Python binding (bindings/python, run by
# .ci/python.sh): Spark 4 needs Java 17 or later. Installs Debian's headless
# JRE 17 when `java` is missing or older. Idempotent.
set -euo pipefail
version() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }
if command -v java >/dev/null 2>&1 && [ "$(version)" -ge 17 ] 2>/dev/null; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >/dev/null
echo "java for Spark: $(java -version 2>&1 | head -n1)"
