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
import { Annotations } from 'aws-cdk-lib';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { deadLetterQueue } from './dead-letters.ts';
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
  /** Addresses subscribed to the alarm topic. */
  alarmEmails: string[];
  /** An existing topic to notify instead of one of the stack's own; empty: the stack's own. */
  alarmTopicArn: string;
  serverErrorRate: number;
  latencyP99Ms: number;
}

export class Monitoring extends Construct {
  readonly dashboard: Dashboard;
  readonly topic: ITopic;
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.topic = this.alarmTopic(props);
    countGatewayRefusals(this, props.accessLogs);
    this.alarms = createAlarms(this, { ...props, topic: this.topic });
    this.dashboard = createDashboard(this, { ...props, alarms: this.alarms });
  }

  /**
   * The topic the alarms notify, with the alarmEmail addresses subscribed (a notice SNS cannot deliver goes
   * to a dead-letter queue rather than nowhere). With no address and no topic of the operator's own, the
   * alarms reach nobody: synth and deploy say so.
   */
  private alarmTopic(props: MonitoringProps): ITopic {
    const topic =
      props.alarmTopicArn !== ''
        ? Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn)
        : new Topic(this, 'AlarmTopic', { displayName: `${props.namePrefix} alarms`, enforceSSL: true });
    if (props.alarmEmails.length > 0) {
      const undelivered = deadLetterQueue(
        this,
        `${props.namePrefix}-alarm-mail-dlq`,
        'the alarm e-mail subscriptions (notices SNS could not deliver)',
      );
      for (const address of props.alarmEmails)
        topic.addSubscription(new EmailSubscription(address, { deadLetterQueue: undelivered }));
    } else if (props.alarmTopicArn === '')
      Annotations.of(this).addWarningV2(
        'photo-commerce:alarms-reach-nobody',
        'The alarms notify a topic nobody subscribes to: set alarmEmail (ALARM_EMAIL, addresses comma-separated) or alarmTopicArn (ALARM_TOPIC_ARN, an existing SNS topic) (docs/deploy.md, Configuration).',
      );
    return topic;
  }
}
