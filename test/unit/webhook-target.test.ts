/**
 * The webhook URL policy with a stubbed resolver: names that resolve to internal addresses, rebinding
 * sets and the loopback switch, without a packet leaving the machine (nothing here connects).
 */
import { describe, expect, it } from 'vitest';
import { vetWebhookUrl, type WebhookTargetPolicy } from '../../functions/webhooks/webhook-target.ts';
import type { ResolvedAddress } from '../../functions/library/pull-target.ts';

const resolving =
  (answers: Record<string, string[]>) =>
  async (hostname: string): Promise<ResolvedAddress[]> => {
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const policy = (allowLoopback: boolean): WebhookTargetPolicy => ({
  allowLoopback,
  resolve: resolving({
    'partner.example.com': ['93.184.216.34'],
    'intranet.example.com': ['10.0.0.7'],
    'rebind.example.com': ['93.184.216.34', '169.254.169.254'],
    'v6.example.com': ['2606:4700::1111'],
    localhost: ['127.0.0.1'],
  }),
});

const refusal = async (url: string, allowLoopback = false) =>
  vetWebhookUrl(url, policy(allowLoopback)).then(
    () => 'accepted',
    (error: Error & { code?: string }) => `${error.code}: ${error.message}`,
  );

describe('vetWebhookUrl', () => {
  it('accepts https to a name with public addresses only, and pins the first', async () => {
    const { target, url } = await vetWebhookUrl('https://partner.example.com:443/hooks?x=1', policy(false));
    expect(target).toEqual({ address: '93.184.216.34', family: 4 });
    expect(url.href).toBe('https://partner.example.com/hooks?x=1');
    expect((await vetWebhookUrl('https://v6.example.com/', policy(false))).target.family).toBe(6);
  });

  it('refuses names that resolve to internal addresses, without telling which', async () => {
    const intranet = await refusal('https://intranet.example.com/hooks');
    expect(intranet).toBe(
      'WebhookUrlRefused: Url https://intranet.example.com/hooks refused: the host intranet.example.com does not resolve to public addresses only.',
    );
    expect(await refusal('https://rebind.example.com/')).toMatch(/does not resolve to public addresses only\.$/);
    expect(await refusal('https://nowhere.example.com/')).toMatch(/does not resolve to public addresses only\.$/);
    expect(intranet).not.toContain('10.0.0.7');
  });

  it('names WEBHOOK_ALLOW_LOOPBACK only when loopback alone stood in the way', async () => {
    expect(await refusal('https://localhost/hooks')).toMatch(/WEBHOOK_ALLOW_LOOPBACK=true/);
    expect(await refusal('https://[::1]/hooks')).toMatch(/::1 is a loopback address.*WEBHOOK_ALLOW_LOOPBACK=true/);
    expect(await refusal('https://10.0.0.1/hooks')).not.toMatch(/WEBHOOK_ALLOW_LOOPBACK/);
    expect(await refusal('http://partner.example.com/hooks')).toMatch(/https only\)\.$/);
    expect(await refusal('http://localhost:3000/hooks')).toMatch(/https only\).*WEBHOOK_ALLOW_LOOPBACK=true/);
  });

  it('with WEBHOOK_ALLOW_LOOPBACK, allows http to loopback only', async () => {
    expect(await refusal('http://localhost:3000/hooks', true)).toBe('accepted');
    expect(await refusal('http://127.0.0.1:3000/hooks', true)).toBe('accepted');
    expect(await refusal('http://partner.example.com/hooks', true)).toMatch(/loopback receivers only/);
    expect(await refusal('https://intranet.example.com/', true)).toMatch(/does not resolve to public addresses only/);
  });

  it('takes port 443 only, naming the port refused; loopback receivers (when allowed) take any', async () => {
    for (const allowLoopback of [false, true]) {
      expect(await refusal('https://1.1.1.1:6379/', allowLoopback)).toBe(
        'WebhookUrlRefused: Url https://1.1.1.1:6379/ refused: port 6379 is not allowed (webhooks use 443; only loopback receivers take any port).',
      );
      expect(await refusal('https://partner.example.com:8443/hooks', allowLoopback)).toMatch(
        /port 8443 is not allowed/,
      );
      expect(await refusal('https://[2606:4700::1111]:22/', allowLoopback)).toMatch(/port 22 is not allowed/);
    }
    expect(await refusal('https://localhost:8443/hooks', true)).toBe('accepted');
    expect(await refusal('https://[::1]:6379/', true)).toBe('accepted');
  });

  it('refuses user info, other schemes and text that is no URL', async () => {
    expect(await refusal('https://a:b@partner.example.com/')).toMatch(/user info/);
    expect(await refusal('https://a@partner.example.com/')).toMatch(/user info/);
    expect(await refusal('file:///etc/passwd')).toMatch(/scheme file/);
    expect(await refusal('partner.example.com/hooks')).toMatch(/not an absolute URL/);
  });
});
