-- The value of a lock key, read the same way by every lock script (sent before each one's text):
-- '<owner> <token> <flags><holder>' while held, '#<token>' while only a fence is kept (see
-- release.lua). flags: 'a' or '-' (the token may be ahead of the server clock, so the release must
-- compare), then 'w' or '-' (a waiter asked for a release message).
-- held(value): nil when there is no hold (no value, or a fence alone); else the position of the
-- space after the owner and that of the first flag, so the owner is sub(1, space - 1) and the token
-- sub(space + 1, flags - 2).
local function held(value)
  if not value or string.byte(value, 1) == 35 then
    return nil
  end
  local space = string.find(value, ' ', 1, true)
  return space, string.find(value, ' ', space + 1, true) + 1
end
