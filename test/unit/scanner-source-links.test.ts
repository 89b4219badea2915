/**
 * The console's links from a finding to its file on the repository's site (docs/console.md#scanners):
 * each host's own form, https repositories only, and nothing but web addresses as rule links.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ruleLink, sourceFileLink } from '../../ui/src/components/source-links.ts';

const REV = '0123456789abcdef0123456789abcdef01234567';

describe('scanner source links', () => {
  it('writes each host\'s file page at the scanned revision and line', () => {
    assert.equal(sourceFileLink('https://github.com/acme/play.git', REV, 'roles/web/tasks/main.yml', 12), `https://github.com/acme/play/blob/${REV}/roles/web/tasks/main.yml#L12`);
    assert.equal(sourceFileLink('https://gitlab.example.com/group/sub/play.git', REV, 'site.yml', 3), `https://gitlab.example.com/group/sub/play/-/blob/${REV}/site.yml#L3`);
    assert.equal(sourceFileLink('https://gitlab.com/acme/play', REV, 'site.yml', 3), `https://gitlab.com/acme/play/-/blob/${REV}/site.yml#L3`);
    assert.equal(sourceFileLink('https://bitbucket.org/acme/play.git', REV, 'site.yml', 7), `https://bitbucket.org/acme/play/src/${REV}/site.yml#lines-7`);
    assert.equal(sourceFileLink('https://codeberg.org/acme/play.git', REV, 'site.yml', 2), `https://codeberg.org/acme/play/src/commit/${REV}/site.yml#L2`);
    assert.equal(sourceFileLink('https://git.example.com/acme/play.git/', REV, './site.yml', null), `https://git.example.com/acme/play/blob/${REV}/site.yml`);
  });

  it('drops credentials and query, and escapes the path', () => {
    assert.equal(sourceFileLink('https://user:token@github.com/acme/play.git?x=1', REV, 'a b/#c.yml', 1), `https://github.com/acme/play/blob/${REV}/a%20b/%23c.yml#L1`);
  });

  it('links nothing for repositories without a web page, unknown revisions or odd addresses', () => {
    for (const url of ['file:///tmp/repo.git', 'git@github.com:acme/play.git', 'ssh://git@github.com/acme/play.git', 'http://github.com/acme/play', 'https://github.com/acme', '/srv/repo', '', null]) {
      assert.equal(sourceFileLink(url, REV, 'site.yml', 1), null, String(url));
    }
    assert.equal(sourceFileLink('https://github.com/acme/play', '', 'site.yml', 1), null);
    assert.equal(sourceFileLink('https://github.com/acme/play', 'x"><script>', 'site.yml', 1), null);
  });

  it('takes only web addresses as rule pages', () => {
    assert.equal(ruleLink('https://ansible-lint.readthedocs.io/rules/no-changed-when/'), 'https://ansible-lint.readthedocs.io/rules/no-changed-when/');
    for (const url of ['javascript:alert(1)', 'data:text/html,x', ' javascript:x', '', undefined]) assert.equal(ruleLink(url), null, String(url));
  });
});
