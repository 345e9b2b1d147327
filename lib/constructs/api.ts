/**
 * The REST API, built from the route table (functions/routes.ts) exactly as the local front is: each route
 * is one method, integrated (Lambda proxy) with its own function, behind the authorizer of its credential
 * kind, with the grants its row names. API Gateway's own refusals answer in the service's JSON error shape.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  Cors,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { binaryMediaTypes, keyScopeOf, routes, type Route } from '../../functions/routes.ts';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../functions/auth/principal.ts';
import { CORS_ALLOWED_HEADERS } from '../../functions/http/cors.ts';
import { GATEWAY_ANSWERS, type GatewayAnswer } from '../../functions/http/gateway-answers.ts';
import type { ServiceConfig } from '../service-config.ts';
import type { Authorizers } from './authorizers.ts';
import { HandlerFunction, type DataResources } from './handler-function.ts';

export interface ApiProps {
  config: ServiceConfig;
  namePrefix: string;
  data: DataResources;
  authorizers: Authorizers;
}

export interface Endpoint {
  route: Route;
  endpoint: HandlerFunction;
}

/** Memory and timeout per route. Functions that move image bytes get more of both (memory buys CPU too). */
function tuning(route: Route): { memorySize: number; timeout: Duration } {
  // Streams the whole assembled file (up to MULTIPART_MAX_BYTES) through the MD5 meter: one full vCPU, and
  // past API Gateway's 29 s it goes on to finish the commit (docs/performance.md, resumable uploads).
  if (route.handler === 'complete-multipart-upload') return { memorySize: 1769, timeout: Duration.seconds(120) };
  if (route.grants.bucket === 'write' || route.grants.bucket === 'readwrite')
    return { memorySize: 1024, timeout: Duration.seconds(29) };
  return { memorySize: 512, timeout: Duration.seconds(10) };
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

    const shared = {
      CHECKOUT_URL: config.checkoutUrl,
      ...(config.corsAllowedOrigins.length > 0 ? { CORS_ALLOWED_ORIGINS: config.corsAllowedOrigins.join(',') } : {}),
    };
    this.endpoints = routes.map((route) => {
      const endpoint = new HandlerFunction(this, `Endpoint-${route.handler}`, {
        handler: route.handler,
        namePrefix,
        description: `${route.method} ${route.path}: ${route.summary}`,
        logRetention: config.logRetentionDays,
        environment: shared,
        ...tuning(route),
      });
      endpoint.grant(route.grants, props.data);
      const authorizer = props.authorizers.for(route.credential);
      this.restApi.root
        .resourceForPath(route.path)
        .addMethod(route.method, new LambdaIntegration(endpoint.function, { allowTestInvoke: false }), {
          operationName: route.handler,
          ...(authorizer ? { authorizer } : {}),
          // The usage plan's per-key throttle applies where API Gateway requires the key the authorizer names.
          apiKeyRequired: keyScopeOf(route) !== undefined,
        });
      return { route, endpoint };
    });

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
