/**
 * Where the alarms go (docs/deploy.md, Configuration): the alarmEmail addresses subscribed to the stack's
 * topic, or an existing topic (alarmTopicArn), or, with neither, a warning naming both settings. Each case is
 * synthesized as bin/app.ts does, so cdk-nag's packs pass on it.
 */
import { describe, expect, it } from 'vitest';
import { synthServiceApp } from './stack.ts';

type Json = any;
const ofType = (resources: Record<string, Json>, type: string): Json[] =>
  Object.values(resources).filter((resource) => resource.Type === type);
const alarmActionsOf = (resources: Record<string, Json>): Json[] =>
  ofType(resources, 'AWS::CloudWatch::Alarm').map((alarm) => alarm.Properties.AlarmActions);
const REACH_NOBODY = /alarmEmail \(ALARM_EMAIL.*alarmTopicArn \(ALARM_TOPIC_ARN/;

describe('where the alarms go', () => {
  it("alarmEmail: each address subscribed to the stack's topic, undeliverable notices kept in a queue", () => {
    const { resources, warnings } = synthServiceApp({ alarmEmail: 'ops@example.org, oncall@example.org' });
    const [topicId] = Object.entries(resources).find(([, resource]) => resource.Type === 'AWS::SNS::Topic')!;
    const [queueId] = Object.entries(resources).find(
      ([, resource]) => resource.Properties?.QueueName === 'photo-commerce-dev-alarm-mail-dlq',
    )!;
    const subscriptions = ofType(resources, 'AWS::SNS::Subscription').map((subscription) => subscription.Properties);
    expect(subscriptions.map((subscription) => subscription.Endpoint)).toEqual([
      'ops@example.org',
      'oncall@example.org',
    ]);
    for (const subscription of subscriptions)
      expect(subscription).toMatchObject({
        Protocol: 'email',
        TopicArn: { Ref: topicId },
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
      });
    for (const actions of alarmActionsOf(resources)) expect(actions).toEqual([{ Ref: topicId }]);
    expect(warnings.filter((warning) => REACH_NOBODY.test(warning))).toEqual([]);
  }, 120_000);

  it('alarmTopicArn: the alarms notify that topic, and the stack makes none', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:ops-paging';
    const { resources, template, warnings } = synthServiceApp({ alarmTopicArn: arn });
    expect(ofType(resources, 'AWS::SNS::Topic')).toEqual([]);
    expect(ofType(resources, 'AWS::SNS::Subscription')).toEqual([]);
    const actions = alarmActionsOf(resources);
    expect(actions.length).toBeGreaterThan(0);
    for (const action of actions) expect(action).toEqual([arn]);
    template.hasOutput('AlarmTopicArn', { Value: arn });
    expect(warnings.filter((warning) => REACH_NOBODY.test(warning))).toEqual([]);
  }, 120_000);

  it('neither: the alarms notify a topic of no subscriber, and synth warns naming both settings', () => {
    const { resources, warnings } = synthServiceApp();
    expect(ofType(resources, 'AWS::SNS::Topic')).toHaveLength(1);
    expect(ofType(resources, 'AWS::SNS::Subscription')).toEqual([]);
    expect(warnings.filter((warning) => REACH_NOBODY.test(warning))).toHaveLength(1);
  }, 120_000);
});
