/**
 * Deployment configuration: context beats environment beats defaults, bad values fail the synth with a
 * message naming the setting, and the settings that change the stack's shape (no authorizer cache, CORS
 * origins) do what docs/deploy.md says. One synth with those settings for the whole file.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { routes } from '../../functions/routes.ts';
import { readServiceConfig } from '../../lib/service-config.ts';
import { synthServiceStack } from './stack.ts';

const configOf = (context: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  readServiceConfig(new App({ context }).node, env);

describe('readServiceConfig', () => {
  it('works with nothing set, naming the placeholders a deployment must replace', () => {
    const config = configOf({});
    expect(config).toMatchObject({
      stage: 'dev',
      authorizerCacheSeconds: 300,
      logRetentionDays: 30,
      corsAllowedOrigins: [],
      alarmEmails: [],
      alarmTopicArn: '',
      jwtAudience: 'photo-commerce-api',
      jwtClientIds: '',
      jwtMaxAgeSeconds: 86_400,
      renditionsMaxConcurrency: 100,
      webhookFanoutMaxConcurrency: 20,
      webhookMaxConcurrency: 20,
    });
    expect(() => configOf({ webhookMaxConcurrency: 1 })).toThrow(/WEBHOOK_MAX_CONCURRENCY/);
    expect(configOf({}, { WEBHOOK_MAX_CONCURRENCY: '5' }).webhookMaxConcurrency).toBe(5);
    expect(config.placeholders).toEqual([
      'checkoutUrl (CHECKOUT_URL)',
      'jwtIssuer (JWT_ISSUER)',
      'jwtAudience (JWT_AUDIENCE)',
      'jwtJwksUrl (JWT_JWKS_URL)',
    ]);
  });

  it('takes context over the environment over the default', () => {
    const env = { STAGE: 'from-env', CHECKOUT_URL: 'https://shop.example.org/', API_THROTTLE_RATE: '50' };
    const config = configOf({ stage: 'prod' }, env);
    expect(config.stage).toBe('prod');
    expect(config.checkoutUrl).toBe('https://shop.example.org');
    expect(config.throttleRate).toBe(50);
    expect(config.placeholders).not.toContain('checkoutUrl (CHECKOUT_URL)');
    expect(configOf({}, { CORS_ALLOWED_ORIGINS: 'https://a.example, https://b.example/' }).corsAllowedOrigins).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });

  it('refuses values that would break the deployment, naming the setting', () => {
    expect(() => configOf({ stage: 'Prod_1' })).toThrow(/stage \(STAGE\)/);
    expect(() => configOf({ logRetentionDays: 10 })).toThrow(/logRetentionDays \(LOG_RETENTION_DAYS\)/);
    expect(() => configOf({ jwtIssuer: 'not a url' })).toThrow(/jwtIssuer \(JWT_ISSUER\)/);
    expect(() => configOf({ alarmEmail: 'ops' })).toThrow(/alarmEmail \(ALARM_EMAIL\)/);
    expect(() => configOf({ alarmEmail: 'ops@example.org; oncall@example.org' })).toThrow(/alarmEmail \(ALARM_EMAIL\)/);
    expect(() => configOf({ alarmTopicArn: 'ops-paging' })).toThrow(/alarmTopicArn \(ALARM_TOPIC_ARN\)/);
    expect(() => configOf({ authorizerCacheSeconds: 7200 })).toThrow(/authorizerCacheSeconds/);
    expect(() => configOf({ throttleRate: 'fast' })).toThrow(/throttleRate \(API_THROTTLE_RATE\)/);
    // SQS event sources take a maximum concurrency from 2 to 1000.
    expect(() => configOf({ renditionsMaxConcurrency: 1 })).toThrow(
      /renditionsMaxConcurrency \(RENDITIONS_MAX_CONCURRENCY\)/,
    );
    expect(() => configOf({}, { WEBHOOK_FANOUT_MAX_CONCURRENCY: '2.5' })).toThrow(/WEBHOOK_FANOUT_MAX_CONCURRENCY/);
    expect(configOf({}, { RENDITIONS_MAX_CONCURRENCY: '1000' }).renditionsMaxConcurrency).toBe(1000);
    for (const currency of ['eur', 'EURO', '€', '', ' US D'])
      expect(() => configOf({ currency }), currency).toThrow(
        /currency \(CURRENCY\) must be an ISO 4217 currency code, three upper-case letters such as EUR, got/,
      );
  });

  it('takes one or more alarm e-mail addresses, comma-separated, and an SNS topic ARN', () => {
    expect(configOf({}, { ALARM_EMAIL: 'ops@example.org, oncall@example.org,' }).alarmEmails).toEqual([
      'ops@example.org',
      'oncall@example.org',
    ]);
    const arn = 'arn:aws:sns:eu-west-1:123456789012:ops-paging';
    expect(configOf({ alarmTopicArn: arn }).alarmTopicArn).toBe(arn);
  });

  it('takes the currency of every price from context or CURRENCY, EUR by default', () => {
    expect(configOf({}).currency).toBe('EUR');
    expect(configOf({}, { CURRENCY: 'USD' }).currency).toBe('USD');
    expect(configOf({ currency: 'GBP' }, { CURRENCY: 'USD' }).currency).toBe('GBP');
    expect(() => configOf({}, { CURRENCY: 'usd' })).toThrow(/currency \(CURRENCY\) .* got usd/);
  });

  it('refuses a stack whose tokens need no audience, and a JWKS URL over plain http', () => {
    expect(() => configOf({ jwtAudience: '' })).toThrow(
      /jwtAudience \(JWT_AUDIENCE\) or jwtClientIds \(JWT_CLIENT_IDS\)/,
    );
    expect(() => configOf({ jwtJwksUrl: 'http://issuer.example.org/jwks.json' })).toThrow(
      /jwtJwksUrl \(JWT_JWKS_URL\) must be an https URL/,
    );
    // Cognito access tokens carry no aud: the app client ids stand in for the audience.
    const cognito = configOf({}, { JWT_CLIENT_IDS: 'client-a, client-b' });
    expect(cognito).toMatchObject({ jwtAudience: '', jwtClientIds: 'client-a,client-b' });
    expect(cognito.placeholders).not.toContain('jwtAudience (JWT_AUDIENCE)');
    expect(configOf({ jwtAudience: 'api.example.org' }).placeholders).not.toContain('jwtAudience (JWT_AUDIENCE)');
    expect(() => configOf({ jwtMaxAgeSeconds: -1 })).toThrow(/jwtMaxAgeSeconds \(JWT_MAX_AGE_SECONDS\)/);
  });
});

describe('stack shape from configuration', () => {
  let resources: Record<string, any>;
  beforeAll(() => {
    ({ resources } = synthServiceStack({
      context: {
        stage: 'qa',
        authorizerCacheSeconds: 0,
        corsAllowedOrigins: 'https://shop.example.org',
        alarmEmail: 'ops@example.org',
        currency: 'CHF',
      },
    }));
  }, 120_000);
  const ofType = (type: string) => Object.values(resources).filter((resource) => resource.Type === type);

  it('without an authorizer cache, drops the identity sources so the authorizer sees every request', () => {
    for (const authorizer of ofType('AWS::ApiGateway::Authorizer')) {
      expect(authorizer.Properties.AuthorizerResultTtlInSeconds).toBe(0);
      expect(authorizer.Properties.IdentitySource ?? '').toBe('');
    }
  });

  it('answers CORS preflights, lets the origin POST presigned uploads and labels gateway errors for it', () => {
    const methods = ofType('AWS::ApiGateway::Method');
    // Every resource and the root answer OPTIONS; the routes keep their own methods.
    expect(methods.filter((method) => method.Properties.HttpMethod === 'OPTIONS').length).toBe(
      ofType('AWS::ApiGateway::Resource').length + 1,
    );
    expect(methods.filter((method) => method.Properties.HttpMethod !== 'OPTIONS').length).toBe(routes.length);
    const images = ofType('AWS::S3::Bucket').find((bucket) => bucket.Properties.CorsConfiguration);
    expect(images?.Properties.CorsConfiguration.CorsRules[0]).toMatchObject({
      AllowedOrigins: ['https://shop.example.org'],
      AllowedMethods: ['POST'],
    });
    for (const response of ofType('AWS::ApiGateway::GatewayResponse')) {
      expect(response.Properties.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBe(
        "'https://shop.example.org'",
      );
    }
    // Every function that answers HTTP requests; the authorizer and the stream-fed sweeper answer none.
    const routeFunctions = new Set(routes.map((route) => `photo-commerce-qa-${route.handler}`));
    const answering = ofType('AWS::Lambda::Function').filter((fn) => routeFunctions.has(fn.Properties.FunctionName));
    expect(answering).toHaveLength(routes.length);
    for (const fn of answering) {
      expect(fn.Properties.Environment.Variables.CORS_ALLOWED_ORIGINS).toBe('https://shop.example.org');
      expect(fn.Properties.Environment.Variables.CURRENCY).toBe('CHF');
    }
  });

  it('names everything after the stage and subscribes the alarm e-mail', () => {
    expect(ofType('AWS::ApiGateway::Stage')[0].Properties.StageName).toBe('qa');
    expect(ofType('AWS::CloudWatch::Dashboard')[0].Properties.DashboardName).toBe('photo-commerce-qa');
    expect(ofType('AWS::SNS::Subscription')[0].Properties).toMatchObject({
      Protocol: 'email',
      Endpoint: 'ops@example.org',
    });
  });
});
