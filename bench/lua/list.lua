-- Lua twin of bench/programs/awfy/list.mini (same algorithm, same output).
-- List from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm.
-- Usage: lua list.lua [INNER_ITERATIONS]   (default 100)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

local Element = {}
Element.__index = Element

function Element.new(v)
  return setmetatable({ val = v, next = nil }, Element)
end

function Element:length()
  if self.next == nil then return 1 end
  return 1 + self.next:length()
end

local function makeList(length)
  if length == 0 then return nil end
  local e = Element.new(length)
  e.next = makeList(length - 1)
  return e
end

local function isShorterThan(x, y)
  local xTail = x
  local yTail = y
  while yTail ~= nil do
    if xTail == nil then return true end
    xTail = xTail.next
    yTail = yTail.next
  end
  return false
end

local function tail(x, y, z)
  if isShorterThan(y, x) then
    return tail(tail(x.next, y, z), tail(y.next, z, x), tail(z.next, x, y))
  end
  return z
end

local function benchmark()
  local result = tail(makeList(15), makeList(10), makeList(6))
  return result:length()
end

local function verifyResult(result)
  return result == 10
end

awfy.run("List", benchmark, verifyResult, awfy.innerIterations(100))
