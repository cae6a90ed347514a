-- Lua twin of bench/programs/awfy/permute.mini (same algorithm, same output).
-- Permute from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm.
-- Usage: lua permute.lua [INNER_ITERATIONS]   (default 100)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

local Permute = {}
Permute.__index = Permute

function Permute.new()
  return setmetatable({ count = 0, v = false }, Permute)
end

function Permute:benchmark()
  self.count = 0
  local v = {}
  for i = 1, 6 do v[i] = 0 end
  self.v = v
  self:permute(6)
  return self.count
end

function Permute:permute(n)
  self.count = self.count + 1
  if n ~= 0 then
    local n1 = n - 1
    self:permute(n1)
    for i = n1, 0, -1 do
      self:swap(n1, i)
      self:permute(n1)
      self:swap(n1, i)
    end
  end
end

-- i and j are 0-based, as in the .mini and Python versions; Lua arrays start at 1.
function Permute:swap(i, j)
  local v = self.v
  local tmp = v[i + 1]
  v[i + 1] = v[j + 1]
  v[j + 1] = tmp
end

function Permute:verifyResult(result)
  return result == 8660
end

local bench = Permute.new()
awfy.runObject("Permute", bench, awfy.innerIterations(100))
