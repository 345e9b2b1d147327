/** What the API key CLIs (bin/api-key.ts, bin/aws-api-key.ts) print for a revocation. */
export const revocationLine = (name: string, revoked: { webhooksDisabled: number } | undefined): string =>
  revoked
    ? `revoked ${name}; disabled ${revoked.webhooksDisabled} webhook${revoked.webhooksDisabled === 1 ? '' : 's'}\n`
    : `no API key named "${name}"\n`;
