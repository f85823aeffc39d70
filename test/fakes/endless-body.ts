import type { ServerResponse } from 'node:http';

/** Answers 200 with a body that never ends (chunked, no Content-Length): 64 KB chunks for as long as the client reads. */
export function sendEndless(response: ServerResponse, contentType: string): void {
  response.writeHead(200, { 'content-type': contentType });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const write = () => {
    while (!response.destroyed && response.write(chunk));
  };
  response.on('drain', write);
  write();
}
