import { AppError, errorBodySchema, scrubSecrets, upstreamError } from '@switchboard/protocol';

/**
 * Azure's error answers that say more than their status: a prompt stopped by the content filter
 * (400, `code: "content_filter"`) is the client's to change, so it stays a 400 with that code;
 * a missing deployment (404 `DeploymentNotFound`) is this gateway's configuration, a 502 that
 * says so. Anything else reads as any OpenAI-compatible error (undefined).
 */
export function azureError(provider: string, secrets: readonly string[]) {
  return (status: number, text: string): AppError | undefined => {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return undefined;
    }
    const parsed = errorBodySchema.safeParse(body);
    if (!parsed.success) return undefined;
    const { code } = parsed.data.error;
    const message = scrubSecrets(parsed.data.error.message, secrets).slice(0, 500);
    if (status === 400 && code === 'content_filter') {
      return new AppError(`Upstream '${provider}' filtered the request: ${message}`, {
        status: 400,
        type: 'invalid_request_error',
        code: 'content_filter',
      });
    }
    if (status === 404 && code === 'DeploymentNotFound') {
      return upstreamError(
        `Upstream '${provider}' has no such deployment (check the provider's deployments): ${message}`,
        'upstream_deployment_not_found',
      );
    }
    return undefined;
  };
}
