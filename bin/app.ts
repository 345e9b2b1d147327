/** CDK app entry (`npx cdk synth | deploy`): the service's app (lib/service-app.ts), synthesized. */
import { serviceApp } from '../lib/service-app.ts';

serviceApp().app.synth();
