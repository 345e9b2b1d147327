/**
 * The REST API, built from the route table (functions/routes.ts) exactly as the local front is: each route
 * is one method, integrated (Lambda proxy) with its own function, behind the authorizer of its credential
 * kind, with the grants its row names. API Gateway's own refusals answer in the service's JSON error shape.
 * The routes' methods and functions live in one nested stack per route group (route-groups.ts); the API,
 * its deployment (which waits for those stacks), stage, usage plans and gateway responses live here.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKey,
  ApiKeySourceType,
  Cors,
  EndpointType,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { binaryMediaTypes, type Route } from '../../functions/routes.ts';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../functions/auth/principal.ts';
import { CORS_ALLOWED_HEADERS } from '../../functions/http/cors.ts';
import { GATEWAY_ANSWERS, type GatewayAnswer } from '../../functions/http/gateway-answers.ts';
import type { ServiceConfig } from '../service-config.ts';
import { refusedCredentialsKeyValue, type Authorizers } from './authorizers.ts';
import type { DataResources } from './handler-function.ts';
import { routeGroupOf, RouteGroupStack, type Endpoint } from './route-groups.ts';

export interface ApiProps {
  config: ServiceConfig;
  namePrefix: string;
  data: DataResources;
  authorizers: Authorizers;
  /** The routes to serve: the route table (functions/routes.ts); the quota test passes a larger one. */
  routes: readonly Route[];
}

const JSON_CONTENT_TYPE = "'application/json; charset=utf-8'";

/**
 * One JSON object per request. Status and latency are numbers (always present), so Logs Insights can
 * compute percentiles on them; fields that can be empty stay strings. The route is logged as its resource
 * path (`/checkout/{checkoutId}`), never as `$context.path`: checkout ids and builder tokens in paths work
 * as secrets and would stay readable in the log group for its retention.
 */
const accessLogFormat = JSON.stringify({
  requestId: '$context.requestId',
  xrayTraceId: '$context.xrayTraceId',
  time: '$context.requestTimeEpoch',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  resource: '$context.resourcePath',
  status: 0,
  latencyMs: 1,
  responseLength: '$context.responseLength',
  integrationLatencyMs: '$context.integration.latency',
  integrationStatus: '$context.integration.status',
  authorizerStatus: '$context.authorizer.status',
  authorizerLatencyMs: '$context.authorizer.latency',
  principalId: '$context.authorizer.principalId',
  apiKeyId: '$context.authorizer.apiKeyId',
  errorType: '$context.error.responseType',
  errorMessage: '$context.error.message',
})
  .replace('"status":0', '"status":$context.status')
  .replace('"latencyMs":1', '"latencyMs":$context.responseLatency');

export class Api extends Construct {
  readonly restApi: RestApi;
  /** One usage plan per API key scope: each key is registered in its scope's plan (bin/aws-api-key.ts). */
  readonly usagePlans: Record<ApiKeyScope, UsagePlan>;
  readonly accessLogs: LogGroup;
  readonly endpoints: Endpoint[];

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const { config, namePrefix } = props;

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      logGroupName: `/aws/apigateway/${namePrefix}/access`,
      retention: config.logRetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: namePrefix,
      description: 'Baskets, orders and image library (photo-commerce)',
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...binaryMediaTypes],
      // Usage plans find the caller's key in the authorizer's answer (usageIdentifierKey), not in x-api-key.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      cloudWatchRole: true,
      deployOptions: {
        stageName: config.stage,
        tracingEnabled: true,
        // Execution logs for errors only; request/response bodies are never logged (they carry credentials).
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        // Per-method metrics cost a custom metric each; per-endpoint figures come from each route's own function.
        metricsEnabled: false,
        throttlingRateLimit: config.throttleRate,
        throttlingBurstLimit: config.throttleBurst,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(accessLogFormat),
      },
      defaultCorsPreflightOptions:
        config.corsAllowedOrigins.length > 0
          ? {
              allowOrigins: config.corsAllowedOrigins,
              allowHeaders: CORS_ALLOWED_HEADERS,
              allowMethods: Cors.ALL_METHODS,
              allowCredentials: false,
              maxAge: Duration.minutes(10),
            }
          : undefined,
    });

    const corsOrigin: Record<string, string> =
      config.corsAllowedOrigins.length === 1
        ? { 'Access-Control-Allow-Origin': `'${config.corsAllowedOrigins[0]}'` }
        : {};
    // The same codes and messages the local front gives (functions/http/gateway-answers.ts).
    for (const answer of Object.values(GATEWAY_ANSWERS) as GatewayAnswer[]) {
      const body = {
        Error: { Code: answer.code, Message: answer.message, ...(answer.retryable ? { Retryable: true } : {}) },
      };
      for (const responseType of answer.responseTypes) {
        this.restApi.addGatewayResponse(responseType, {
          type: ResponseType.of(responseType),
          ...(answer.status ? { statusCode: String(answer.status) } : {}),
          responseHeaders: {
            'Content-Type': JSON_CONTENT_TYPE,
            ...(answer.retryAfter ? { 'Retry-After': "'1'" } : {}),
            ...Object.fromEntries(Object.entries(answer.headers ?? {}).map(([name, value]) => [name, `'${value}'`])),
            ...corsOrigin,
          },
          templates: { 'application/json': JSON.stringify(body) },
        });
      }
    }
    // Every other 4xx of API Gateway's own (malformed request, unsupported media type, ...): its own text.
    this.restApi.addGatewayResponse('DEFAULT_4XX', {
      type: ResponseType.DEFAULT_4XX,
      responseHeaders: { 'Content-Type': JSON_CONTENT_TYPE, ...corsOrigin },
      templates: {
        'application/json': '{"Error":{"Code":"$context.error.responseType","Message":$context.error.messageString}}',
      },
    });

    // A plan per scope: a scope's throttle (or a quota) is set in one place, and usage reads per scope. The
    // library plan keeps the construct id of the one plan before scopes split, so its registered keys stay.
    const usagePlanOf = (scope: ApiKeyScope) =>
      this.restApi.addUsagePlan(scope === 'library' ? 'UsagePlan' : `UsagePlan-${scope}`, {
        name: `${namePrefix}-${scope}`,
        description: `Per-key throttling of ${scope} API keys: each is registered as an API Gateway key whose value is its SHA-256 hash, which the authorizer answers as usageIdentifierKey`,
        throttle: { rateLimit: config.keyThrottleRate, burstLimit: config.keyThrottleBurst },
        apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
      });
    this.usagePlans = Object.fromEntries(API_KEY_SCOPES.map((scope) => [scope, usagePlanOf(scope)])) as Record<
      ApiKeyScope,
      UsagePlan
    >;
    // Refused credentials on API-key routes reach their handler (which answers 401 with the reason) under
    // this one key: API Gateway requires a registered key there. They share its throttle bucket.
    const refusedCredentials = new ApiKey(this, 'RefusedCredentialsKey', {
      apiKeyName: `${namePrefix}-refused-credentials`,
      value: refusedCredentialsKeyValue(namePrefix),
      description:
        'Counts requests whose credential the authorizer refused, on API-key routes; never sent by clients (API key source AUTHORIZER)',
    });
    this.usagePlans.library.addApiKey(refusedCredentials);

    const shared = {
      CHECKOUT_URL: config.checkoutUrl,
      CURRENCY: config.currency,
      ...(config.corsAllowedOrigins.length > 0 ? { CORS_ALLOWED_ORIGINS: config.corsAllowedOrigins.join(',') } : {}),
    };
    // Each group's routes in a nested stack of its own; the endpoints listed in route table order.
    const grouped = [...Map.groupBy(props.routes, routeGroupOf)].flatMap(
      ([group, groupRoutes]) =>
        new RouteGroupStack(this, group, { ...props, routes: groupRoutes, restApi: this.restApi, environment: shared })
          .endpoints,
    );
    this.endpoints = props.routes.map((route) => grouped.find((endpoint) => endpoint.route === route)!);

    this.suppressFindings();
  }

  /** cdk-nag findings accepted on purpose, each with its reason. */
  private suppressFindings(): void {
    Validations.of(this.restApi).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Requests are validated in each handler against its zod contract (functions/contracts), the one source of request types, identical locally and in AWS; API Gateway models would be a second JSON-schema copy that can drift from it.',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'No WAF by default (a web ACL costs about 6 USD a month plus requests); stage and per-key throttling limit abuse. Associate a web ACL with the stage where needed.',
      },
      {
        id: 'Serverless-APIGWStructuredLogging',
        reason:
          'Every access log line is one JSON object; status and latency are left unquoted in the format so that Logs Insights reads them as numbers, which is why the format string itself does not parse as JSON before API Gateway fills it in.',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          "API Gateway's account-wide CloudWatch role uses AmazonAPIGatewayPushToCloudWatchLogs, the policy AWS prescribes for it.",
      },
    );
    const cognitoReason =
      'Bearer tokens are verified by the Lambda authorizer against any OIDC issuer (Cognito or not), and API keys are not Cognito identities; a Cognito authorizer could check neither.';
    for (const method of this.restApi.methods) {
      const route = this.endpoints.find(
        (endpoint) => endpoint.route.method === method.httpMethod && endpoint.route.path === method.resource.path,
      )?.route;
      const openReason =
        method.httpMethod === 'OPTIONS'
          ? 'CORS preflight (OPTIONS) must answer without credentials; it is a mock integration that reaches no function.'
          : route?.credential === 'none'
            ? `${route.method} ${route.path} is public by design (liveness check / OpenAPI document) and reads no data.`
            : undefined;
      if (openReason) {
        Validations.of(method).acknowledge(
          { id: 'AwsSolutions-APIG4', reason: openReason },
          { id: 'AwsSolutions-COG4', reason: openReason },
        );
      } else {
        Validations.of(method).acknowledge({ id: 'AwsSolutions-COG4', reason: cognitoReason });
      }
    }
  }
}
