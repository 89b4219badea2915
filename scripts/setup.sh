#!/usr/bin/env bash
# Prepares a fresh checkout: Node packages, the Ansible runtime (ansible-core, ansible-runner), the run sandbox (bubblewrap), the scanners (ansible-lint, yamllint) and the web console.
set -euo pipefail
cd "$(dirname "$0")/.."

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "drover needs Node.js 20 or newer (found $(node -v))" >&2
  exit 1
fi

if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi

# Runs, inventory updates and project requirements use the system's Ansible (Debian packages).
# Every run executes inside a bubblewrap sandbox (docs/security.md).
ANSIBLE_PACKAGES="ansible-core python3-ansible-runner bubblewrap"
if [ -x /usr/bin/ansible-playbook ] && [ -x /usr/bin/ansible-inventory ] && [ -x /usr/bin/ansible-runner ] && [ -x /usr/bin/bwrap ]; then
  # The whole output is read: a pipe into `head -1` closes early and Ansible prints a BrokenPipe traceback.
  ansible_version=$(/usr/bin/ansible-playbook --version 2>/dev/null || true)
  echo "Ansible runtime: ${ansible_version%%$'\n'*}"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing the Ansible runtime: $ANSIBLE_PACKAGES"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $ANSIBLE_PACKAGES
else
  echo "The Ansible runtime is missing. Install it with:" >&2
  echo "  sudo apt-get install -y $ANSIBLE_PACKAGES" >&2
fi

# Launch-time IaC scanners (docs/scanners.md): ansible-lint and yamllint, Debian packages; checkov is used where installed.
SCANNER_PACKAGES="ansible-lint yamllint"
if [ -x /usr/bin/ansible-lint ] && [ -x /usr/bin/yamllint ]; then
  echo "Scanners: ansible-lint and yamllint found"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing the scanners: $SCANNER_PACKAGES"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $SCANNER_PACKAGES
else
  echo "The scanners are missing (launches with scanners enabled need them). Install them with:" >&2
  echo "  sudo apt-get install -y $SCANNER_PACKAGES" >&2
fi

# A Debian package the tests need: installed when `path` is missing (as root), or the command to do it printed.
ensure_test_package() {
  local path=$1 package=$2 what=$3
  [ -e "$path" ] && return
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "Installing $what for the tests: $package"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$package"
  else
    echo "$what is missing (the tests need it). Install it with:" >&2
    echo "  sudo apt-get install -y $package" >&2
  fi
}

# The tests clone over SSH from a local sshd (loopback only).
ensure_test_package /usr/sbin/sshd openssh-server sshd
# The tests drive the service with AWX's own Ansible collection (awx.awx), shipped by Debian's ansible package.
ensure_test_package /usr/lib/python3/dist-packages/ansible_collections/awx/awx ansible "AWX's Ansible collection"
# The LDAP sign-in tests start their own slapd (loopback, a seeded directory) and seed it with ldapadd.
ensure_test_package /usr/sbin/slapd slapd slapd
ensure_test_package /usr/bin/ldapadd ldap-utils "LDAP client tools"
# The browser tests drive Debian's Chromium with playwright-core (no browser download).
ensure_test_package /usr/bin/chromium chromium Chromium

# The web console, served at /.
npm run -s build

echo
echo "Setup complete. Next:"
echo "  npm start    # then open http://localhost:8013/ and log in as admin with the password it prints"
echo "  npm test     # runs the tests"
