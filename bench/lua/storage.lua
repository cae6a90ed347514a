-- Lua twin of bench/programs/awfy/storage.mini (same algorithm, same output).
-- Storage from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm. Usage: lua storage.lua [INNER_ITERATIONS]   (default 100)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

local Storage = {}
Storage.__index = Storage

function Storage.new()
  return setmetatable({ count = 0 }, Storage)
end

function Storage:benchmark()
  local random = awfy.Random.new()
  self.count = 0
  self:buildTreeDepth(7, random)
  return self.count
end

-- Arrays of n null slots: Lua tables cannot hold nil, so leaves are tables of
-- n `false` placeholders (the same number of slots as the .mini arrays).
function Storage:buildTreeDepth(depth, random)
  self.count = self.count + 1
  if depth == 1 then
    local n = random:next() % 10 + 1
    local leaf = {}
    for i = 1, n do leaf[i] = false end
    return leaf
  else
    local arr = {}
    for i = 1, 4 do arr[i] = self:buildTreeDepth(depth - 1, random) end
    return arr
  end
end

function Storage:verifyResult(result)
  return result == 5461
end

local bench = Storage.new()
awfy.runObject("Storage", bench, awfy.innerIterations(100))
