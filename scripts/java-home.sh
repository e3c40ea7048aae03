# Sourced by .ci/run and demo.sh: points JAVA_HOME at a JDK 21 or newer.
# Order: an existing JAVA_HOME that is new enough, then the JDKs under /usr/lib/jvm (newest first),
# then installing one from Debian's packages.

java_major() {
  "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1
}

herald_find_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ] && [ "$(java_major "$JAVA_HOME")" -ge 21 ]; then
    return 0
  fi
  local candidate
  for candidate in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do
    candidate=${candidate%/}
    if [ -x "$candidate/bin/javac" ] && [ "$(java_major "$candidate")" -ge 21 ] 2>/dev/null; then
      export JAVA_HOME=$candidate
      return 0
    fi
  done
  return 1
}

if ! herald_find_jdk; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "No JDK 21+ found: installing one from Debian's packages" >&2
    apt-get update -qq
    apt-get install -y -qq openjdk-21-jdk-headless >/dev/null 2>&1 \
      || apt-get install -y -qq openjdk-25-jdk-headless >/dev/null 2>&1 || true
  fi
  herald_find_jdk || { echo "Herald needs a JDK 21 or newer (set JAVA_HOME)" >&2; exit 1; }
fi
export PATH="$JAVA_HOME/bin:$PATH"
