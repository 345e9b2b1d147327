/**
 * First step of `npm test` (and of `npm start`, in bin/local.ts): without a Java 17+ runtime DynamoDB Local
 * cannot run, so stop at once with one line that says what to install.
 */
import { JAVA_MISSING, javaMajorVersion } from '../lib/local/dynamodb-local.ts';

if ((javaMajorVersion() ?? 0) < 17) {
  process.stderr.write(`${JAVA_MISSING}\n`);
  process.exit(1);
}
