/**
 * Ansible's variables that choose how it connects and which programs it starts: the connection
 * plugin and shell, interpreters (`ansible_python_interpreter`), executables (`ansible_ssh_executable`,
 * `ansible_become_exe`), extra command-line arguments (`ansible_ssh_common_args`), become flags and
 * key files. Whoever sets one runs a program of their choosing, on the hosts and, with a local
 * connection, on the execution node: so launch-time values may not (docs/security.md).
 */
const CONNECTION_VARIABLE = /^ansible_(connection|shell_type|become_method|network_os|[a-z0-9_]*_(interpreter|executable|exe|args|flags|key_file))$/;

export const isConnectionVariable = (name: string) => CONNECTION_VARIABLE.test(name);
