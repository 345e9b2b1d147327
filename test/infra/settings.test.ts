/**
 * Every setting of the stack (SETTINGS in lib/service-config.ts, what docs/deploy.md's configuration table
 * lists), set alone to its example, a valid value other than its default, synthesizes as bin/app.ts does,
 * cdk-nag's packs passing. A new setting is covered by its entry: its example is required.
 */
import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { readServiceConfig, SETTINGS } from '../../lib/service-config.ts';
import { synthServiceApp } from './stack.ts';

const configOf = (context: Record<string, unknown>) => readServiceConfig(new App({ context }).node, {});

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
