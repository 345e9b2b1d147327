/**
 * Every setting of the stack (SETTINGS in lib/service-config.ts, what docs/deploy.md's configuration table
 * lists), set alone to its example, a valid value other than its default, synthesizes as bin/app.ts does,
 * cdk-nag's packs passing. A new setting is covered by its entry: its example is required.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { PLACEHOLDER_SETTINGS, readServiceConfig, SETTINGS } from '../../lib/service-config.ts';
import { synthServiceApp } from './stack.ts';

/** Every placeholder setting at its example value. */
const PLACEHOLDERS_SET = Object.values(SETTINGS)
  .filter((setting) => PLACEHOLDER_SETTINGS.includes(setting.context))
  .map((setting) => [setting.context, setting.example]);

const configOf = (context: Record<string, unknown>) => readServiceConfig(new App({ context }).node, {});

describe("docs/deploy.md's configuration table", () => {
  it('lists every setting of the stack, and only those, by context and environment variable', () => {
    const deploy = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const section = deploy.slice(deploy.indexOf('## Configuration'), deploy.indexOf('## Steps'));
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    const cells = (index: number) =>
      rows.flatMap((row) => [...(row.split('|')[index] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]));
    const settings = Object.values(SETTINGS);
    expect(cells(1).toSorted()).toEqual(settings.map((setting) => setting.context).toSorted());
    expect(cells(2).toSorted()).toEqual(settings.map((setting) => setting.env).toSorted());
  });
});

describe('each setting at a value other than its default', () => {
  const defaults = configOf({});
  it.each(Object.entries(SETTINGS))(
    '%s synthesizes with cdk-nag passing',
    (name, setting) => {
      const context = { [setting.context]: setting.example };
      expect(setting.example).not.toBe(setting.fallback);
      // The example changes the configuration: it is read, and it is not the default in other words.
      expect(configOf(context)).not.toEqual(defaults);
      expect(() => synthServiceApp(context), name).not.toThrow();
    },
    120_000,
  );
});

describe('a stack still holding placeholders', () => {
  it('is an error naming each one (cdk synth and deploy stop on it) unless acknowledged by name', () => {
    const [none] = synthServiceApp({ acknowledgedPlaceholders: '' }).errors;
    expect(none).toContain(
      'Settings still at their placeholder: checkoutUrl (CHECKOUT_URL), jwtIssuer (JWT_ISSUER), jwtAudience (JWT_AUDIENCE), jwtJwksUrl (JWT_JWKS_URL).',
    );
    expect(none).toContain('-c acknowledgedPlaceholders=checkoutUrl,jwtIssuer,jwtAudience,jwtJwksUrl');
    const some = synthServiceApp({ acknowledgedPlaceholders: 'checkoutUrl, jwtIssuer' });
    expect(some.errors).toHaveLength(1);
    expect(some.errors[0]).toContain('placeholder: jwtAudience (JWT_AUDIENCE), jwtJwksUrl (JWT_JWKS_URL).');
    expect(some.warnings.filter((warning) => warning.includes('is a placeholder'))).toHaveLength(2);
    expect(synthServiceApp().errors).toEqual([]);
    expect(synthServiceApp({ ...Object.fromEntries(PLACEHOLDERS_SET), acknowledgedPlaceholders: '' }).errors).toEqual(
      [],
    );
  }, 120_000);

  it('refuses to acknowledge what is no placeholder setting', () => {
    expect(() => configOf({ acknowledgedPlaceholders: 'stage' })).toThrow(
      /acknowledgedPlaceholders \(ACKNOWLEDGED_PLACEHOLDERS\) names what is no placeholder setting: stage/,
    );
  });
});
