/**
 * Every variable of docs/configuration.md (its rows come from lib/environment-variables.ts) reaches the
 * functions run from their assets (LOCAL_BUNDLES=1) as its column *set for `npm start`* says, in the
 * environment the local stack gives each function of the cdk.out the run's global setup synthesized
 * (lib/local/bundles/): a `functions` variable set in `npm start`'s shell is in every function's environment;
 * a `template` one is in the environment the template (or Lambda) gives some function; a `local only` one is
 * `npm start`'s own, and nothing of the shell but the `functions` variables is handed to a function.
 */
import { describe, expect, it } from 'vitest';
import { functionSettings, npmStartScope, VARIABLES, type NpmStartScope } from '../../lib/environment-variables.ts';
import { functionEnvironment, type LocalEndpoints } from '../../lib/local/bundles/bundled-functions.ts';
import { synthesizedFunctions } from '../../lib/local/bundles/synthesized-stack.ts';
import { localSynthesisContext } from '../../lib/local/service.ts';

const functions = synthesizedFunctions(
  {
    tableName: 'local-table',
    bucketName: 'local-bucket',
    eventBusName: 'local-bus',
    webhookDeliveryQueueUrl: 'http://127.0.0.1:9/000000000000/local-deliveries',
    webhookKeyId: 'alias/local',
    artworkLinkKeyId: 'alias/local-links',
  },
  localSynthesisContext(process.env).stage,
);
const endpoints: LocalEndpoints = {
  region: 'us-east-1',
  dynamoEndpoint: 'http://127.0.0.1:9',
  s3Endpoint: 'http://127.0.0.1:9',
  eventBridgeEndpoint: 'http://127.0.0.1:9',
  kmsEndpoint: 'http://127.0.0.1:9',
  sqsEndpoint: 'http://127.0.0.1:9',
  jwksFile: '/keys/jwks.json',
};
const withScope = (scope: NpmStartScope) => Object.keys(VARIABLES).filter((name) => npmStartScope(name) === scope);
/** A shell as `npm start` meets it: the variable, and what every shell holds besides. */
const shellWith = (name: string) => ({ [name]: `set-for-npm-start-${name}`, PATH: '/usr/bin', HOME: '/home/me' });

describe('the settings a shell sets for npm start, and the bundled functions', () => {
  it('finds the functions of the synthesized stack, and variables of each kind', () => {
    expect(functions.length).toBeGreaterThan(20);
    for (const scope of ['functions', 'local', 'stack'] as const)
      expect(withScope(scope).length, scope).toBeGreaterThan(0);
  });

  it.each(withScope('functions'))('%s (functions): in every bundled function, as the shell set it', (name) => {
    const shell = shellWith(name);
    for (const fn of functions)
      expect(functionEnvironment(fn, endpoints, functionSettings(shell))[name], fn.module).toBe(shell[name]);
  });

  it.each(withScope('stack'))('%s (template): set by the template or Lambda, no shell value laid over it', (name) => {
    const holders = functions.filter((fn) => functionEnvironment(fn, endpoints)[name] !== undefined);
    expect(holders.length).toBeGreaterThan(0);
    expect(functionSettings(shellWith(name))).toEqual({});
  });

  it.each(withScope('local'))("%s (local only): npm start's own, handed to no function", (name) => {
    expect(functionSettings(shellWith(name))).toEqual({});
  });

  it('hands the functions nothing else of the shell', () => {
    expect(functionSettings({ PATH: '/usr/bin', HOME: '/home/me', AWS_SECRET_ACCESS_KEY: 'secret' })).toEqual({});
  });
});
