// Loaded with NODE_OPTIONS=--require by the interop tests, which may only serve on loopback.
// Several servers have no setting for their bind address and listen on every interface, on a
// port given as a number or as a string (from PORT or a flag). Every TCP listen, whatever the
// form of its arguments, is pinned to 127.0.0.1 unless it already names a loopback host:
//   listen(), listen(cb), listen(port[, host][, backlog][, cb]) with port a number or a string
//   of digits, listen({ port, host, ... }) with or without port.
// Unix sockets (a path), inherited handles and file descriptors are left as they are.
"use strict";
const net = require("node:net");

const LOOPBACK = "127.0.0.1";
const original = net.Server.prototype.listen;

const isPort = (v) => typeof v === "number" || (typeof v === "string" && /^\s*\d+\s*$/.test(v));
const isLoopback = (host) =>
  typeof host === "string" && (host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host));
const isHandle = (o) => o._handle !== undefined || o.handle !== undefined || o.fd !== undefined;

function pinned(args) {
  const first = args[0];
  if (first !== null && typeof first === "object") {
    if (isHandle(first) || first.path !== undefined || isLoopback(first.host)) {
      return args;
    }
    return [{ ...first, host: LOOPBACK }, ...args.slice(1)];
  }
  let port, rest;
  if (typeof first === "function") {
    [port, rest] = [0, args]; // listen(cb): a random port on every interface
  } else if (first === undefined || first === null || isPort(first)) {
    [port, rest] = [first ?? 0, args.slice(1)];
  } else {
    return args; // a string that is not a port: a pipe or socket path
  }
  // After the port, Node reads a string as the host; anything else (backlog, callback) follows it.
  if (typeof rest[0] === "string") {
    rest = isLoopback(rest[0]) ? rest : [LOOPBACK, ...rest.slice(1)];
  } else {
    rest = [LOOPBACK, ...rest];
  }
  return [port, ...rest];
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  return original.apply(this, pinned(args));
};
