-- The opt-in tool calls of a server of the configuration file (its calls: list), as the
-- monitor encodes them: tool, arguments, timeout, invalidArguments, expect. An argument read
-- from the environment is kept as {"fromEnv": "VAR"}, a reference the worker resolves at probe
-- time, so no secret is stored here (as headers and env keep theirs). Only the configuration
-- file gives a server calls: the API never writes this column, and a server of another
-- source with calls is refused before it is written (store.Server.Validate). json, not jsonb:
-- the calls read back byte for byte as written, as the configuration's generation hashes them.
ALTER TABLE servers ADD COLUMN calls json NOT NULL DEFAULT '[]' CHECK (json_typeof(calls) = 'array');
