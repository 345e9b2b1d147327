/**
 * Tests change the environment between requests (a quota, CORS origins, a pull timeout), while the service
 * reads it once (functions/shared/env-readers.ts), as in Lambda. So in tests every change to `process.env`
 * makes the configuration read it again, wherever the change is made.
 */
import { reloadConfig } from '../../functions/shared/env-readers.ts';

const environment = process.env;
process.env = new Proxy(environment, {
  set(target, name, value) {
    const done = Reflect.set(target, name, value);
    reloadConfig();
    return done;
  },
  deleteProperty(target, name) {
    const done = Reflect.deleteProperty(target, name);
    reloadConfig();
    return done;
  },
});
