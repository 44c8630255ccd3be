/**
 * Whether a platform's credentials may go with a file download from `url`: only to the platform's
 * own HTTPS hosts (`domains` and their subdomains, default port) or to the origin the hook's
 * `apiUrl` names (an enterprise proxy, or a test double). A URL with credentials of its own is
 * refused. The URL comes from a webhook or an API answer; the token goes nowhere else.
 */
export function platformFileHost(url: string, apiUrl: string, domains: readonly string[]): boolean {
  let file: URL;
  try {
    file = new URL(url);
  } catch {
    return false;
  }
  if (file.username || file.password) return false;
  if (file.origin === new URL(apiUrl).origin) return true;
  const host = file.hostname.toLowerCase();
  const owned = domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
  return owned && file.protocol === 'https:' && (file.port === '' || file.port === '443');
}
