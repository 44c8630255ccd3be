/** A listener for an error nobody waits for any more (undici fails a body destroyed before its end with 'aborted'). */
export const ignore = () => {};

/** What a body closed with neither an end nor an error fails with, as a Readable's async iterator says. */
export function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
