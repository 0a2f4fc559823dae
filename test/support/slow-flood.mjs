// A slow-client flood, run as its own process (its sockets count against its own descriptor limit, not the test's):
// `node slow-flood.mjs PORT HEADER_SLOW BODY_SLOW TOKEN`. HEADER_SLOW connections send half their headers and no
// token, then nothing; BODY_SLOW connections send whole headers with the token and a body of 1,000 declared bytes,
// one byte every 200 ms. Each connection the server closes is opened again a second later, until SIGTERM; then one JSON
// line of counts is printed. "ready" is printed once every connection has been opened once.
import { connect } from 'node:net';

const [port, headerSlow, bodySlow, token] = process.argv.slice(2);
const counts = { opened: 0, closedByServer: 0 };
let stopping = false;
let pendingFirst = Number(headerSlow) + Number(bodySlow);

function open(kind) {
  const socket = connect(Number(port), '127.0.0.1');
  let drip;
  socket.on('connect', () => {
    counts.opened += 1;
    if (--pendingFirst === 0) process.stdout.write('ready\n');
    if (kind === 'header') return void socket.write('POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    socket.write(`POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
    drip = setInterval(() => socket.write(' '), 200);
  });
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  socket.on('close', () => {
    clearInterval(drip);
    if (stopping) return;
    counts.closedByServer += 1;
    setTimeout(() => open(kind), 1000);
  });
  return socket;
}

const sockets = [];
for (let i = 0; i < Number(headerSlow); i++) sockets.push(open('header'));
for (let i = 0; i < Number(bodySlow); i++) sockets.push(open('body'));
process.on('SIGTERM', () => {
  stopping = true;
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  process.exit(0);
});
