// Loopback ports for the servers tests start (apps, fake merchants, relays, shops).
import { createServer, type AddressInfo } from 'node:net';

/** A free TCP port on 127.0.0.1, asked of the OS and released again: nothing listens there until the caller does. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
