import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isConnectionVariable } from '../../src/ansible/connection-variables.ts';

describe('connection variables (src/ansible/connection-variables.ts)', () => {
  it('are the variables that choose how Ansible connects or which program it starts', () => {
    for (const name of [
      'ansible_connection', 'ansible_shell_type', 'ansible_become_method', 'ansible_network_os',
      'ansible_python_interpreter', 'ansible_perl_interpreter', 'ansible_ssh_executable', 'ansible_become_exe',
      'ansible_ssh_common_args', 'ansible_ssh_extra_args', 'ansible_become_flags', 'ansible_ssh_private_key_file',
    ]) assert.equal(isConnectionVariable(name), true, name);
  });

  it('leave alone the variables a play reads, and names that only resemble them', () => {
    for (const name of [
      'ansible_user', 'ansible_host', 'ansible_port', 'ansible_become', 'ansible_become_user', 'http_port',
      'my_ansible_connection', 'ansible_connection_timeout', 'ansible_python_interpreter_x', 'ANSIBLE_CONNECTION',
    ]) assert.equal(isConnectionVariable(name), false, name);
  });
});
