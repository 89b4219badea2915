import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';

/** A tenant provisioned through the API. */
async function newTenant(t: TestApp, fields: { name: string; branding: Record<string, string> }) {
  const username = `${fields.name.replace(/[^\w]+/g, '_').slice(0, 40)}-admin`;
  const res = await t.post('/api/v2/tenants/', { ...fields, admin_username: username, admin_email: 'admin@example.com' });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** The JSON data block the page carries, parsed as the console parses it. */
function brandingData(html: string): Record<string, string> | undefined {
  const match = /<script type="application\/json" id="drover-branding">([\s\S]*?)<\/script>/.exec(html);
  return match ? JSON.parse(match[1]) : undefined;
}

describe('the console page on a tenant custom domain', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await newTenant(t, {
      name: 'Acme Corp',
      branding: { logo_url: 'https://cdn.acme.example/logo.png', primary_color: '#112233', secondary_color: '#ffeedd', custom_domain: 'console.acme.example', contact_email: 'ops@acme.example' },
    });
  });
  after(() => t.close());

  it('carries the tenant name as title and its branding as data, for the host in any spelling', async () => {
    for (const host of ['console.acme.example', 'CONSOLE.Acme.Example:8013', 'console.acme.example.']) {
      const res = await t.get('/jobs/3', { as: null, headers: { host } });
      assert.equal(res.status, 200, host);
      assert.match(res.text, /<title>Acme Corp<\/title>/, host);
      assert.deepEqual(brandingData(res.text), {
        name: 'Acme Corp', logo_url: 'https://cdn.acme.example/logo.png', primary_color: '#112233', secondary_color: '#ffeedd', contact_email: 'ops@acme.example',
      });
      assert.match(res.text, /<meta name="theme-color" content="#112233" \/>/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      // The logo's origin, and only there, may be loaded from; scripts stay this origin's only.
      const csp = res.headers['content-security-policy'] as string;
      assert.match(csp, /img-src 'self' data: https:\/\/cdn\.acme\.example;/);
      assert.match(csp, /script-src 'self';/);
    }
  });

  it('serves the stock page to every other host', async () => {
    for (const host of ['localhost:8013', 'other.acme.example', 'acme.example']) {
      const res = await t.get('/', { as: null, headers: { host } });
      assert.equal(res.status, 200);
      assert.match(res.text, /<title>Drover<\/title>/);
      assert.equal(brandingData(res.text), undefined);
      assert.doesNotMatch(res.text, /theme-color/);
      assert.match(res.headers['content-security-policy'] as string, /img-src 'self' data:;/);
    }
  });

  it('keeps every value data: quotes, markup and </script> cannot break out of the page', async () => {
    const hostile = '</script><script>alert(1)</script><!--';
    await newTenant(t, { name: `Evil ${hostile}"'&`, branding: { custom_domain: 'evil.example' } });
    // Values the API would refuse, written straight to the table: the page must stay safe regardless.
    await t.db.query(`UPDATE tenants SET logo_url = $1, primary_color = $2, secondary_color = $3, contact_email = $4 WHERE custom_domain = 'evil.example'`, [
      `javascript:alert(1)//${hostile}`, `#fff"</script><script>alert(2)</script>`, `red;}</style><style>`, `a@b.example${hostile}\u2028`,
    ]);
    const res = await t.get('/', { as: null, headers: { host: 'evil.example' } });
    assert.equal(res.status, 200);
    assert.equal((res.text.match(/<script/g) ?? []).length, 2, 'the module script and the data block only');
    assert.equal((res.text.match(/<\/script>/g) ?? []).length, 2);
    assert.doesNotMatch(res.text, /<!--/);
    assert.match(res.text, /<title>Evil &lt;\/script&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;&lt;!--&quot;&#39;&amp;<\/title>/);
    const data = brandingData(res.text)!;
    assert.equal(data.name, `Evil ${hostile}"'&`);
    assert.equal(data.contact_email, `a@b.example${hostile}\u2028`);
    assert.equal(data.logo_url, '', 'a javascript: logo is left out');
    assert.equal(data.primary_color, '');
    assert.equal(data.secondary_color, '');
    assert.doesNotMatch(res.text, /theme-color/);
    assert.match(res.headers['content-security-policy'] as string, /img-src 'self' data:;/);
  });
});
