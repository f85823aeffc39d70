import { createServer, type IncomingMessage } from 'node:http';

// The far side of the `upload` section, in a process of its own so that the bytes it takes never count in the
// uploader's memory: X's chunked media upload as the connector speaks it (initialize, append, finalize,
// https://docs.x.com/x-api/media/quickstart/media-upload-chunked) and a bare `POST /bare`, each reading the body and
// keeping only its length. It reports its port over IPC and stops when its parent goes away.

let uploaded = 0;

async function drain(request: IncomingMessage): Promise<number> {
  let bytes = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) bytes += chunk.length;
  return bytes;
}

const server = createServer((request, response) => {
  void (async () => {
    const bytes = await drain(request);
    const path = request.url ?? '/';
    const json = (body: object) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/bare') return json({ bytes });
    if (path === '/2/media/upload/initialize') {
      uploaded = 0;
      return json({ data: { id: '1', expires_after_secs: 86_400 } });
    }
    if (path.endsWith('/append')) {
      uploaded += bytes;
      return json({ data: { expires_at: 0 } });
    }
    if (path.endsWith('/finalize')) return json({ data: { id: '1', size: uploaded, processing_info: { state: 'succeeded' } } });
    response.writeHead(404).end();
  })();
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('disconnect', () => process.exit(0));
