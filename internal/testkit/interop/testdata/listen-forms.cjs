// Run by TestLoopbackPreloadPinsEveryListenForm with bind-loopback.cjs preloaded: listens once
// in each form Node accepts for a TCP port and prints, per form, the address the socket got.
"use strict";
const net = require("node:net");
const http = require("node:http");

const forms = {
  "listen()": (s, cb) => { s.once("listening", cb); s.listen(); },
  "listen(cb)": (s, cb) => s.listen(cb),
  "listen(0)": (s, cb) => s.listen(0, cb),
  'listen("0")': (s, cb) => s.listen("0", cb),
  "listen(0, backlog, cb)": (s, cb) => s.listen(0, 16, cb),
  'listen("0", "0.0.0.0")': (s, cb) => s.listen("0", "0.0.0.0", cb),
  'listen(0, "::")': (s, cb) => s.listen(0, "::", cb),
  'listen(0, "")': (s, cb) => s.listen(0, "", cb),
  "listen(undefined, cb)": (s, cb) => s.listen(undefined, cb),
  "listen(null, cb)": (s, cb) => s.listen(null, cb),
  "listen({port: 0})": (s, cb) => s.listen({ port: 0 }, cb),
  'listen({port: "0"})': (s, cb) => s.listen({ port: "0" }, cb),
  'listen({port: 0, host: "0.0.0.0"})': (s, cb) => s.listen({ port: 0, host: "0.0.0.0" }, cb),
  'listen({port: 0, host: "127.0.0.2"})': (s, cb) => s.listen({ port: 0, host: "127.0.0.2" }, cb),
  "http.Server listen(0, cb)": (s, cb) => s.listen(0, cb),
};

async function main() {
  const out = {};
  for (const [name, listen] of Object.entries(forms)) {
    const server = name.startsWith("http.") ? http.createServer() : net.createServer();
    out[name] = await new Promise((resolve, reject) => {
      server.once("error", reject);
      listen(server, () => {
        const { address } = server.address();
        server.close(() => resolve(address));
      });
    });
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
