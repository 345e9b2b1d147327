/** docs/security.md: the authorization matrix, as the matrix test checks it. */
import { routes, type Credential } from '../../functions/routes.ts';
import { AUTHORIZATION_COLUMNS, expectedAnswer, type MatrixColumn } from '../authorization-matrix.ts';
import { table } from './markdown.ts';

const ROUTE_KINDS: Credential[] = ['none', 'user', 'apiKey', 'library', 'site', 'catalog', 'fulfilment'];

/** What a cell adds to its answer, beyond 'in' / 401 / 403. */
/** What a row's label adds to the column's name. */
const ROW_LABELS: Partial<Record<MatrixColumn, string>> = {
  'malformed token': 'malformed token (`not.a.jwt`)',
  'key of the retired internal scope': 'key of the retired `internal` scope',
};

const CELL_NOTES: Partial<Record<MatrixColumn, Partial<Record<Credential, string>>>> = {
  "another user's token": { user: "in (404 for the owner's resources)" },
};

export function authorizationMatrix(): string {
  const count = (kind: Credential) => routes.filter((route) => route.credential === kind).length;
  const summary =
    `\`test/integration/authorization-matrix.test.ts\` sends a request to **every route of the route table** ` +
    `with each of ${AUTHORIZATION_COLUMNS.length} credentials and checks every cell ` +
    `(${routes.length} routes × ${AUTHORIZATION_COLUMNS.length} = ${routes.length * AUTHORIZATION_COLUMNS.length} cells):`;
  const header = ['credential presented', ...ROUTE_KINDS.map((kind) => `\`${kind}\` routes (${count(kind)})`)];
  const rows = AUTHORIZATION_COLUMNS.map((column) => [
    ROW_LABELS[column] ?? column,
    ...ROUTE_KINDS.map((kind) => CELL_NOTES[column]?.[kind] ?? String(expectedAnswer({ credential: kind }, column))),
  ]);
  return `${summary}\n\n${table(header, rows)}`;
}
