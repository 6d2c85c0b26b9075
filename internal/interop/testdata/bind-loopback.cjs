// Loaded with NODE_OPTIONS=--require by the interop tests. server-everything listens on a bare
// port, which Node binds on every interface; the tests may only serve on loopback, so a listen
// that names a TCP port but no host gets 127.0.0.1. Unix sockets, handles and explicit hosts are kept.
"use strict";
const net = require("node:net");

const original = net.Server.prototype.listen;
const isPort = (v) => typeof v === "number" || (typeof v === "string" && /^\d+$/.test(v));

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const first = args[0];
  if (first !== null && typeof first === "object" && !Array.isArray(first)) {
    if (first.port !== undefined && first.host === undefined) {
      args[0] = { ...first, host: "127.0.0.1" };
    }
  } else if (isPort(first) && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return original.apply(this, args);
};
