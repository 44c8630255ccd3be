/** The deployment a call went to, as an observer sees it. */
export interface DeploymentRef {
  /** `<provider>/<model>`. */
  id: string;
  provider: string;
}

/**
 * What the gateway tells whoever watches it (the apps' metrics), called in place as things
 * happen; every method is optional and must not throw. The providers package knows nothing of
 * Prometheus: the apps pass an observer in.
 */
export interface GatewayObserver {
  /** A chat call's tokens: at its answer, or at the end of a stream whose usage is known. */
  usage?(deployment: DeploymentRef, promptTokens: number, completionTokens: number): void;
  /** A deployment failed a call in a way another could cure (after its own retries), by error code. */
  upstreamError?(deployment: DeploymentRef, code: string): void;
  /** A provider sends a request again (connection error, 408, 429, 5xx). */
  retry?(provider: string): void;
  /** A request for `model` was answered by the fallback target `fallback`. */
  fallback?(model: string, fallback: string): void;
  /**
   * A call to a deployment starts (traces); the function returned is called when it settles
   * (a stream: once the upstream accepted it), with the error when it failed.
   */
  modelCall?(deployment: DeploymentRef): (error?: unknown) => void;
}
