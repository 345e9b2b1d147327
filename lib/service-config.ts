/**
 * Deployment configuration of the CDK stack. Each setting comes from CDK context (`-c name=value` or
 * cdk.json), else from the environment variable beside it, else from a default that lets `cdk synth` run
 * offline on a clean clone. The defaults are placeholders where a real deployment needs its own value;
 * `placeholders` names those so the stack can warn about them. Settings that would weaken the service
 * (no token audience, keys over plain http) fail the synth instead.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { DEFAULT_THROTTLE } from './local/throttle.ts';
import { currencyText, DEFAULT_CURRENCY, MAX_SUBSCRIBERS_CACHE_SECONDS } from '../functions/shared/config.ts';
import { CONSUMER_CONCURRENCY, maxConcurrency } from './consumer-concurrency.ts';

export interface ServiceConfig {
  stage: string;
  /** Base URL of the checkout and product builder site (CHECKOUT_URL of the functions). */
  checkoutUrl: string;
  /** ISO 4217 code of every price (CURRENCY of the functions). */
  currency: string;
  jwtIssuer: string;
  /** Accepted `aud` values, comma-separated; empty only when jwtClientIds is set. */
  jwtAudience: string;
  /** Cognito app clients whose access tokens (no `aud`) are accepted, comma-separated. */
  jwtClientIds: string;
  /** Oldest accepted token by its `iat`; 0: no limit. */
  jwtMaxAgeSeconds: number;
  /** https only: the keys decide every identity. */
  jwtJwksUrl: string;
  /** Addresses subscribed to the alarm topic; none, with no alarmTopicArn, and the alarms reach nobody (synth warns). */
  alarmEmails: string[];
  /** An existing SNS topic the alarms notify instead of a topic of the stack's own; empty: the stack's topic. */
  alarmTopicArn: string;
  corsAllowedOrigins: string[];
  /** Stage-wide steady requests per second and burst (all callers together). */
  throttleRate: number;
  throttleBurst: number;
  /** Per caller (usage plan), the same settings and defaults as the local front's throttle. */
  keyThrottleRate: number;
  keyThrottleBurst: number;
  /** API Gateway's authorizer result cache; also how long a revoked API key keeps working. */
  authorizerCacheSeconds: number;
  logRetentionDays: RetentionDays;
  /** Invocations the renditions and webhook fan-out and delivery queues' event sources run at once (maxConcurrency). */
  renditionsMaxConcurrency: number;
  webhookFanoutMaxConcurrency: number;
  webhookMaxConcurrency: number;
  /** Minutes of failures without a success after which a webhook is paused (WEBHOOK_PAUSE_AFTER_MINUTES of the delivery function). */
  webhookPauseAfterMinutes: number;
  /** Seconds the fan-out keeps an event type's subscribers (WEBHOOK_SUBSCRIBERS_CACHE_SECONDS of the webhook functions). */
  webhookSubscribersCacheSeconds: number;
  /** Alarm thresholds. */
  alarmServerErrorRate: number;
  alarmLatencyP99Ms: number;
  /** Settings still at their placeholder default, as `context (ENV)`. */
  placeholders: string[];
  /** Placeholder settings (context names) a stack may keep without failing `cdk synth | deploy`: tests, local. */
  acknowledgedPlaceholders: string[];
}

export interface Setting {
  context: string;
  env: string;
  fallback: string;
  /** The fallback is a stand-in that a real deployment replaces. */
  placeholder?: true;
  /** A valid value other than the fallback: test/infra/settings.test.ts synthesizes the stack with each. */
  example: string;
}

/** Every setting of the stack, by its name in ServiceConfig. */
export const SETTINGS = {
  stage: { context: 'stage', env: 'STAGE', fallback: 'dev', example: 'qa' },
  checkoutUrl: {
    context: 'checkoutUrl',
    env: 'CHECKOUT_URL',
    fallback: 'https://checkout.example.com',
    placeholder: true,
    example: 'https://shop.example.org',
  },
  currency: { context: 'currency', env: 'CURRENCY', fallback: DEFAULT_CURRENCY, example: 'CHF' },
  jwtIssuer: {
    context: 'jwtIssuer',
    env: 'JWT_ISSUER',
    fallback: 'https://issuer.example.com/',
    placeholder: true,
    example: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example',
  },
  jwtAudience: {
    context: 'jwtAudience',
    env: 'JWT_AUDIENCE',
    fallback: 'photo-commerce-api',
    placeholder: true,
    example: 'api.example.org,site.example.org',
  },
  jwtClientIds: { context: 'jwtClientIds', env: 'JWT_CLIENT_IDS', fallback: '', example: 'client-a,client-b' },
  jwtMaxAgeSeconds: { context: 'jwtMaxAgeSeconds', env: 'JWT_MAX_AGE_SECONDS', fallback: '86400', example: '0' },
  jwtJwksUrl: {
    context: 'jwtJwksUrl',
    env: 'JWT_JWKS_URL',
    fallback: 'https://issuer.example.com/.well-known/jwks.json',
    placeholder: true,
    example: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example/.well-known/jwks.json',
  },
  alarmEmail: {
    context: 'alarmEmail',
    env: 'ALARM_EMAIL',
    fallback: '',
    example: 'ops@example.org, oncall@example.org',
  },
  alarmTopicArn: {
    context: 'alarmTopicArn',
    env: 'ALARM_TOPIC_ARN',
    fallback: '',
    example: 'arn:aws:sns:eu-west-1:123456789012:ops-paging',
  },
  corsAllowedOrigins: {
    context: 'corsAllowedOrigins',
    env: 'CORS_ALLOWED_ORIGINS',
    fallback: '',
    example: 'https://shop.example.org,https://admin.example.org',
  },
  throttleRate: { context: 'throttleRate', env: 'API_THROTTLE_RATE', fallback: '1000', example: '50' },
  throttleBurst: { context: 'throttleBurst', env: 'API_THROTTLE_BURST', fallback: '2000', example: '100' },
  keyThrottleRate: {
    context: 'keyThrottleRate',
    env: 'THROTTLE_RATE_PER_SECOND',
    fallback: String(DEFAULT_THROTTLE.ratePerSecond),
    example: '0.5',
  },
  keyThrottleBurst: {
    context: 'keyThrottleBurst',
    env: 'THROTTLE_BURST',
    fallback: String(DEFAULT_THROTTLE.burst),
    example: '5',
  },
  authorizerCacheSeconds: {
    context: 'authorizerCacheSeconds',
    env: 'AUTHORIZER_CACHE_SECONDS',
    fallback: '300',
    example: '0',
  },
  logRetentionDays: { context: 'logRetentionDays', env: 'LOG_RETENTION_DAYS', fallback: '30', example: '365' },
  alarmServerErrorRate: { context: 'alarmServerErrorRate', env: 'ALARM_5XX_RATE', fallback: '0.01', example: '0.05' },
  alarmLatencyP99Ms: { context: 'alarmLatencyP99Ms', env: 'ALARM_P99_LATENCY_MS', fallback: '2500', example: '800' },
  acknowledgedPlaceholders: {
    context: 'acknowledgedPlaceholders',
    env: 'ACKNOWLEDGED_PLACEHOLDERS',
    fallback: '',
    example: 'checkoutUrl,jwtIssuer',
  },
  webhookMaxConcurrency: {
    ...CONSUMER_CONCURRENCY.webhookDeliveries,
    fallback: String(CONSUMER_CONCURRENCY.webhookDeliveries.fallback),
    example: '5',
  },
  webhookPauseAfterMinutes: {
    context: 'webhookPauseAfterMinutes',
    env: 'WEBHOOK_PAUSE_AFTER_MINUTES',
    fallback: '15',
    example: '60',
  },
  webhookSubscribersCacheSeconds: {
    context: 'webhookSubscribersCacheSeconds',
    env: 'WEBHOOK_SUBSCRIBERS_CACHE_SECONDS',
    fallback: '10',
    example: '0',
  },
  renditionsMaxConcurrency: {
    ...CONSUMER_CONCURRENCY.renditions,
    fallback: String(CONSUMER_CONCURRENCY.renditions.fallback),
    example: '10',
  },
  webhookFanoutMaxConcurrency: {
    ...CONSUMER_CONCURRENCY.webhookFanout,
    fallback: String(CONSUMER_CONCURRENCY.webhookFanout.fallback),
    example: '2',
  },
} satisfies Record<string, Setting>;

type Name = keyof typeof SETTINGS;

/** The settings whose default is a placeholder, by context name. */
export const PLACEHOLDER_SETTINGS: string[] = Object.values(SETTINGS as Record<string, Setting>)
  .filter((setting) => setting.placeholder)
  .map((setting) => setting.context);

/** The items of a comma-separated value, trimmed, empty ones left out. */
const list = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

export function readServiceConfig(node: Node, environment: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const placeholders: string[] = [];
  /** The value set in context or environment, if any. */
  const given = (name: Name): string | undefined => {
    const setting: Setting = SETTINGS[name];
    const fromContext = node.tryGetContext(setting.context) as unknown;
    if (fromContext !== undefined && fromContext !== null)
      return (typeof fromContext === 'string' ? fromContext : JSON.stringify(fromContext)).trim();
    return environment[setting.env]?.trim() || undefined;
  };
  const raw = (name: Name): string => {
    const value = given(name);
    if (value !== undefined) return value;
    const setting: Setting = SETTINGS[name];
    if (setting.placeholder) placeholders.push(`${setting.context} (${setting.env})`);
    return setting.fallback;
  };
  const number = (name: Name, min: number, max: number): number => {
    const value = Number(raw(name));
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new Error(`${SETTINGS[name].context} (${SETTINGS[name].env}) must be a number from ${min} to ${max}`);
    }
    return value;
  };
  const url = (name: Name, httpsOnly = false): string => {
    const value = raw(name);
    if (value === '') return value;
    const pattern = httpsOnly ? /^https:\/\/[^\s/]+/ : /^https?:\/\/[^\s/]+/;
    if (!pattern.test(value))
      throw new Error(
        `${SETTINGS[name].context} (${SETTINGS[name].env}) must be an ${httpsOnly ? 'https' : 'http(s)'} URL, got ${value}`,
      );
    return value;
  };
  /**
   * A token must name this API: an audience, or for Cognito access tokens (no `aud`) an app client id.
   * Without client ids the audience is a placeholder like the issuer; set empty, with no client ids, it fails.
   */
  const audience = (clientIds: string): string => {
    const value = given('jwtAudience');
    if (value === undefined && clientIds !== '') return '';
    if (value === '' && clientIds === '')
      throw new Error(
        'jwtAudience (JWT_AUDIENCE) or jwtClientIds (JWT_CLIENT_IDS) must be set: tokens must be meant for this API',
      );
    return raw('jwtAudience');
  };

  const retention = (): RetentionDays => {
    const days = number('logRetentionDays', 1, 3653);
    if (!(Object.values(RetentionDays) as number[]).includes(days))
      throw new Error(
        `logRetentionDays (LOG_RETENTION_DAYS): ${days} is not a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, ...)`,
      );
    return days as RetentionDays;
  };

  const stage = raw('stage');
  // It names the stage, the functions (64 characters at most) and the log groups.
  if (!/^[a-z0-9-]{1,20}$/.test(stage)) throw new Error('stage (STAGE): lower-case letters, digits and -, at most 20');
  const alarmEmails = list(raw('alarmEmail'));
  for (const address of alarmEmails)
    if (!/^[^@\s,]+@[^@\s,]+$/.test(address))
      throw new Error(`alarmEmail (ALARM_EMAIL) is not an e-mail address: ${address}`);
  const alarmTopicArn = raw('alarmTopicArn');
  if (alarmTopicArn !== '' && !/^arn:aws[\w-]*:sns:[a-z0-9-]+:\d{12}:[\w-]{1,256}$/.test(alarmTopicArn))
    throw new Error(`alarmTopicArn (ALARM_TOPIC_ARN) is not an SNS topic ARN: ${alarmTopicArn}`);

  const jwtClientIds = list(raw('jwtClientIds')).join(',');
  const acknowledgedPlaceholders = list(raw('acknowledgedPlaceholders'));
  const unknown = acknowledgedPlaceholders.filter((name) => !PLACEHOLDER_SETTINGS.includes(name));
  if (unknown.length > 0)
    throw new Error(
      `acknowledgedPlaceholders (ACKNOWLEDGED_PLACEHOLDERS) names what is no placeholder setting: ${unknown.join(', ')} (they are ${PLACEHOLDER_SETTINGS.join(', ')})`,
    );
  const config: ServiceConfig = {
    stage,
    checkoutUrl: url('checkoutUrl').replace(/\/+$/, ''),
    currency: currencyText(raw('currency'), 'currency (CURRENCY)'),
    jwtIssuer: url('jwtIssuer'),
    jwtAudience: audience(jwtClientIds),
    jwtClientIds,
    jwtMaxAgeSeconds: number('jwtMaxAgeSeconds', 0, 30 * 86_400),
    jwtJwksUrl: url('jwtJwksUrl', true),
    alarmEmails,
    alarmTopicArn,
    corsAllowedOrigins: list(raw('corsAllowedOrigins')).map((origin) => origin.replace(/\/+$/, '')),
    throttleRate: number('throttleRate', 1, 100_000),
    throttleBurst: number('throttleBurst', 1, 100_000),
    keyThrottleRate: number('keyThrottleRate', 0.01, 100_000),
    keyThrottleBurst: number('keyThrottleBurst', 1, 100_000),
    authorizerCacheSeconds: number('authorizerCacheSeconds', 0, 3600),
    webhookMaxConcurrency: maxConcurrency('webhookDeliveries', raw('webhookMaxConcurrency')),
    // A pause must come before the five-day disabling (a day at most) and after a few retries (a minute at least).
    webhookPauseAfterMinutes: number('webhookPauseAfterMinutes', 1, 1440),
    webhookSubscribersCacheSeconds: number('webhookSubscribersCacheSeconds', 0, MAX_SUBSCRIBERS_CACHE_SECONDS),
    logRetentionDays: retention(),
    renditionsMaxConcurrency: maxConcurrency('renditions', raw('renditionsMaxConcurrency')),
    webhookFanoutMaxConcurrency: maxConcurrency('webhookFanout', raw('webhookFanoutMaxConcurrency')),
    alarmServerErrorRate: number('alarmServerErrorRate', 0, 1),
    alarmLatencyP99Ms: number('alarmLatencyP99Ms', 1, 29_000),
    placeholders,
    acknowledgedPlaceholders,
  };
  return config;
}
