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

# Debian packages the service (or its tests) needs: installed when any of `paths` is missing (as root), or the command to do it printed.
ensure_packages() {
  local what=$1 packages=$2; shift 2
  local path missing=
  for path in "$@"; do [ -e "$path" ] || missing=1; done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "Installing $what: $packages"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $packages
  else
    echo "$what is missing. Install it with:" >&2
    echo "  sudo apt-get install -y $packages" >&2
  fi
}

# Runs, inventory updates and project requirements use the system's Ansible (Debian packages).
# Every run executes inside a bubblewrap sandbox (docs/security.md).
ensure_packages "the Ansible runtime" "ansible-core python3-ansible-runner bubblewrap" \
  /usr/bin/ansible-playbook /usr/bin/ansible-inventory /usr/bin/ansible-runner /usr/bin/bwrap
if [ -x /usr/bin/ansible-playbook ]; then
  # The whole output is read: a pipe into `head -1` closes early and Ansible prints a BrokenPipe traceback.
  ansible_version=$(/usr/bin/ansible-playbook --version 2>/dev/null || true)
  echo "Ansible runtime: ${ansible_version%%$'\n'*}"
fi

# Launch-time IaC scanners (docs/scanners.md); checkov is used where installed.
ensure_packages "the scanners (ansible-lint, yamllint)" "ansible-lint yamllint" /usr/bin/ansible-lint /usr/bin/yamllint

# The tests clone over SSH from a local sshd (loopback only).
ensure_packages "sshd (for the tests)" openssh-server /usr/sbin/sshd
# The tests drive the service with AWX's own Ansible collection (awx.awx), shipped by Debian's ansible package.
ensure_packages "AWX's Ansible collection (for the tests)" ansible /usr/lib/python3/dist-packages/ansible_collections/awx/awx
# The LDAP sign-in tests start their own slapd (loopback, a seeded directory) and seed it with ldapadd.
ensure_packages "slapd (for the tests)" slapd /usr/sbin/slapd
ensure_packages "LDAP client tools (for the tests)" ldap-utils /usr/bin/ldapadd
# The browser tests drive Debian's Chromium with playwright-core (no browser download).
ensure_packages "Chromium (for the tests)" chromium /usr/bin/chromium

# The web console, served at /.
npm run -s build

echo
echo "Setup complete. Next:"
echo "  npm start    # then open http://localhost:8013/ and log in as admin with the password it prints"
echo "  npm test     # runs the tests"
