-- Lua twin of bench/programs/method_calls.mini (same algorithm, same output).
-- The old Shootout's "Method Calls" (methcall): Toggle / NthToggle, activate()
-- then value() N times on each. Usage: lua method_calls.lua [N]

local Toggle = {}
Toggle.__index = Toggle

function Toggle.new(start)
  return setmetatable({ state = start }, Toggle)
end

function Toggle:value() return self.state end

function Toggle:activate()
  self.state = not self.state
  return self
end

local NthToggle = setmetatable({}, { __index = Toggle })
NthToggle.__index = NthToggle

function NthToggle.new(start, maxCounter)
  local t = Toggle.new(start)
  t.countMax = maxCounter
  t.counter = 0
  return setmetatable(t, NthToggle)
end

function NthToggle:activate()
  self.counter = self.counter + 1
  if self.counter >= self.countMax then
    self.state = not self.state
    self.counter = 0
  end
  return self
end

local n = tonumber(arg and arg[1]) or 2500000

local val = true
local toggle = Toggle.new(val)
local trues = 0
for _ = 1, n do
  val = toggle:activate():value()
  if val then trues = trues + 1 end
end
print(tostring(val))
print(trues)

val = true
local ntoggle = NthToggle.new(val, 3)
trues = 0
for _ = 1, n do
  val = ntoggle:activate():value()
  if val then trues = trues + 1 end
end
print(tostring(val))
print(trues)
