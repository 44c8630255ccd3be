import type { MediaRef } from '@switchboard/protocol';
import type { DeliveryContext } from '../definition.js';
import { platformFileHost } from '../media/file-host.js';
import type { MediaLocation } from '../media/media-location.js';
import { type TeamsAppConfig, teamsAccessToken, teamsApp } from './teams-access-token.js';

/**
 * Microsoft's hosts a pasted image's `contentUrl` may be on and the bot's Connector token may go
 * to: the Connector (smba.trafficmanager.net), Skype's media service (*.asm.skype.com), the Bot
 * Framework, and Microsoft's own (teams.microsoft.com among them: subdomains are included).
 */
const MICROSOFT_FILE_DOMAINS = ['trafficmanager.net', 'skype.com', 'botframework.com', 'microsoft.com'];

/** How a reference says the download needs the bot's token (an inline image's `contentUrl`). */
const WITH_TOKEN = 'bearer:';

/**
 * The files of a message activity (`attachments[]`, learn.microsoft.com …/bots/how-to/bots-filesv4):
 * a file sent in a personal chat (`application/vnd.microsoft.teams.file.download.info`) by its
 * pre-authenticated `content.downloadUrl`, fetched without credentials; an image pasted into the
 * message (`image/*`) by its `contentUrl`, fetched with the bot's Connector token when the URL is on
 * a Microsoft host or the activity's own (verified) `serviceUrl` origin, else without. The copy of
 * the message as HTML and cards are not files.
 */
export function teamsMediaOf(
  attachments: readonly { contentType: string; contentUrl?: string | undefined; name?: string | undefined; content?: unknown }[],
  serviceUrl: string,
): MediaRef[] {
  const media: MediaRef[] = [];
  for (const attachment of attachments) {
    const name = attachment.name?.slice(0, 256);
    const content = attachment.content as { downloadUrl?: unknown } | undefined;
    if (attachment.contentType === 'application/vnd.microsoft.teams.file.download.info') {
      if (typeof content?.downloadUrl !== 'string' || !content.downloadUrl) continue;
      media.push({ kind: 'file', ref: content.downloadUrl, ...(name ? { name } : {}) });
    } else if (attachment.contentType.startsWith('image/') && attachment.contentUrl) {
      const url = attachment.contentUrl;
      const withToken = platformFileHost(url, serviceUrl, MICROSOFT_FILE_DOMAINS);
      media.push({
        kind: 'image',
        ref: withToken ? `${WITH_TOKEN}${url}` : url,
        type: attachment.contentType.slice(0, 128),
        ...(name ? { name } : {}),
      });
    }
  }
  return media.slice(0, 10);
}

/** Where a Teams file is: its URL, with the bot's Connector token when the reference says so. */
export async function locateTeamsFile(
  ref: MediaRef,
  { hook, config, http }: DeliveryContext<TeamsAppConfig>,
): Promise<MediaLocation> {
  if (!ref.ref.startsWith(WITH_TOKEN)) return { url: ref.ref };
  const token = await teamsAccessToken(teamsApp(hook, config, http));
  return { url: ref.ref.slice(WITH_TOKEN.length), headers: { authorization: `Bearer ${token}` } };
}
