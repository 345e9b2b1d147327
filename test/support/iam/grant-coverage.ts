/**
 * Which grants the recorded calls exercised: a grant is one (function, policy statement, action, resource)
 * of an Allow statement on a function's role; an allowed call exercises the statements the simulator says
 * allowed it, in each action and resource of theirs that it matches. Only the services the local stand-ins
 * record are counted (logs and X-Ray calls are the Lambda runtime's, never made locally).
 */
import type { CallVerdict } from './evaluate-calls.ts';
import { statementsOf, type TemplateAccess } from './template-access.ts';
import { asList, matches } from './wildcards.ts';

export const RECORDED_SERVICES = ['dynamodb', 's3', 'events', 'sqs'];

export interface Grant {
  handler: string;
  policy: string;
  /** 1-based, as the simulator counts. */
  statement: number;
  action: string;
  resource: string;
}

const recorded = (action: string) => RECORDED_SERVICES.includes(action.split(':')[0] as string);

/** Every grant of every function in the template, on a recorded service. */
export function grantsOf(access: TemplateAccess): Grant[] {
  return [...access.functions.values()].flatMap((fn) =>
    fn.policies.flatMap((policy) =>
      statementsOf(policy.document).flatMap((statement, index) =>
        statement.Effect !== 'Allow'
          ? []
          : asList(statement.Action)
              .filter(recorded)
              .flatMap((action) =>
                asList(statement.Resource).map((resource) => ({
                  handler: fn.handler,
                  policy: policy.name,
                  statement: index + 1,
                  action,
                  resource,
                })),
              ),
      ),
    ),
  );
}

/** The grants no allowed call exercised. */
export function unexercisedGrants(access: TemplateAccess, verdicts: CallVerdict[]): Grant[] {
  const exercised = (grant: Grant) =>
    verdicts.some(
      (verdict) =>
        verdict.allowed &&
        verdict.handler === grant.handler &&
        matches(grant.action, verdict.action, true) &&
        matches(grant.resource, verdict.resource) &&
        verdict.grants.some(
          (reason) =>
            reason.policyType === 'identity' &&
            reason.policyIdentifier === grant.policy &&
            reason.statementIndex === grant.statement,
        ),
    );
  return grantsOf(access).filter((grant) => !exercised(grant));
}
