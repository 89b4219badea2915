import type { RepositoryFiles } from './git.ts';

/**
 * A project whose playbooks break real ansible-lint and yamllint rules (all of them still run):
 * lint.yml has a command without changed_when (no-changed-when, "critical" to ansible-lint: high
 * here) and a deprecated module (include); yaml-error.yml has trailing spaces (a yamllint error);
 * clean.yml passes both tools with their default configurations.
 */
export const LINT_FILES: RepositoryFiles = {
  'lint.yml': [
    '- hosts: all',
    '  gather_facts: false',
    '  tasks:',
    '    - name: Run a command',
    '      ansible.builtin.command: echo hello',
    '    - include: tasks/extra.yml',
    '',
  ].join('\n'),
  'tasks/extra.yml': '---\n- name: Extra\n  ansible.builtin.debug:\n    msg: extra\n',
  'yaml-error.yml': [
    '---',
    '- name: Trailing spaces',
    '  hosts: all',
    '  gather_facts: false',
    '  tasks:',
    '    - name: Say hello   ',
    '      ansible.builtin.debug:',
    '        msg: hello',
    '',
  ].join('\n'),
  'clean.yml': [
    '---',
    '- name: Clean play',
    '  hosts: all',
    '  gather_facts: false',
    '  tasks:',
    '    - name: Say hello',
    '      ansible.builtin.debug:',
    '        msg: hello',
    '',
  ].join('\n'),
};
