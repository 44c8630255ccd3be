import { type Handler, type LocalServer, sendJson, startLocalServer } from './http-server.js';
import { defaultOpenAIHandler } from './openai-upstream.js';

/**
 * A local Azure OpenAI resource: `POST /openai/deployments/{deployment}/{chat/completions |
 * embeddings}?api-version=…` with the `api-key` header, answering in the OpenAI wire format
 * for the deployments it has, and with Azure's own error bodies otherwise (401 for a wrong key,
 * 404 `DeploymentNotFound`, 404 for a path or version it does not serve).
 */
export interface AzureOptions {
  apiKey: string;
  deployments: string[];
  apiVersion?: string;
  /** Serves the requests that pass the checks. @defaultValue defaultOpenAIHandler */
  handler?: Handler;
}

export function azureHandler(options: AzureOptions): Handler {
  return (req, res, raw) => {
    const url = new URL(req.url, 'http://azure.local');
    const match = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/.exec(url.pathname);
    if (!match || (options.apiVersion && url.searchParams.get('api-version') !== options.apiVersion)) {
      return sendJson(res, 404, { error: { code: '404', message: 'Resource not found' } });
    }
    if (req.headers['api-key'] !== options.apiKey) {
      return sendJson(res, 401, {
        error: {
          code: '401',
          message:
            'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
        },
      });
    }
    if (!options.deployments.includes(decodeURIComponent(match[1]!))) {
      return sendJson(res, 404, {
        error: {
          code: 'DeploymentNotFound',
          message:
            'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
        },
      });
    }
    return (options.handler ?? defaultOpenAIHandler)(req, res, raw);
  };
}

/** Azure's answer to a prompt its content filter stopped. */
export function azureContentFilterBody() {
  return {
    error: {
      message:
        "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
      type: null,
      param: 'prompt',
      code: 'content_filter',
      status: 400,
      innererror: {
        code: 'ResponsibleAIPolicyViolation',
        content_filter_result: { hate: { filtered: true, severity: 'high' }, violence: { filtered: false, severity: 'safe' } },
      },
    },
  };
}

export function startAzureUpstream(options: AzureOptions): Promise<LocalServer> {
  return startLocalServer(azureHandler(options));
}
