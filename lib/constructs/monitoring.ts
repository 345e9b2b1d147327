/**
 * One dashboard an operator reads top to bottom (health, per endpoint, auth, Lambda, storage, business),
 * alarms on what needs a person, and the SNS topic they notify. Widgets are written by hand rather than
 * with cdk-monitoring-constructs: that library gives every function its own block of widgets and alarms,
 * 33 blocks here, where one graph with a line per endpoint answers "which endpoint" at a glance.
 * The alarms are in monitoring/alarms.ts, the widgets in monitoring/dashboard.ts.
 */
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Alarm, Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { Endpoint } from './route-groups.ts';
import type { Renditions } from './renditions.ts';
import type { Webhooks } from './webhooks.ts';
import type { HandlerFunction } from './handler-function.ts';
import type { StreamConsumer } from './stream-consumer.ts';
import { createAlarms } from './monitoring/alarms.ts';
import { createDashboard } from './monitoring/dashboard.ts';
import { countGatewayRefusals } from './monitoring/metrics.ts';

export interface MonitoringProps {
  namePrefix: string;
  api: RestApi;
  accessLogs: ILogGroup;
  endpoints: Endpoint[];
  authorizer: HandlerFunction;
  /** The table stream's consumers: each gets its failures, dead-letter (and lateness) alarms and a dashboard row. */
  streamConsumers: StreamConsumer[];
  renditions: Renditions;
  /** The webhook queues: their functions' failure alarms and a dead-letter alarm each. */
  webhooks: Webhooks;
  table: Table;
  bucket: IBucket;
  alarmEmail: string;
  serverErrorRate: number;
  latencyP99Ms: number;
}

export class Monitoring extends Construct {
  readonly dashboard: Dashboard;
  readonly topic: Topic;
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.topic = new Topic(this, 'AlarmTopic', { displayName: `${props.namePrefix} alarms`, enforceSSL: true });
    if (props.alarmEmail !== '') this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    countGatewayRefusals(this, props.accessLogs);
    this.alarms = createAlarms(this, { ...props, topic: this.topic });
    this.dashboard = createDashboard(this, { ...props, alarms: this.alarms });
  }
}
