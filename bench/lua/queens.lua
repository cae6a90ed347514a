-- Lua twin of bench/programs/awfy/queens.mini (same algorithm, same output).
-- Queens from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm: the eight queens problem by backtracking, ten times per
-- benchmark() call.
-- Usage: lua queens.lua [INNER_ITERATIONS]   (default 100)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

local Queens = {}
Queens.__index = Queens

function Queens.new()
  return setmetatable({ freeRows = false, freeMaxs = false, freeMins = false, queenRows = false }, Queens)
end

function Queens:benchmark()
  local result = true
  for _ = 1, 10 do
    result = result and self:queens()
  end
  return result
end

-- The arrays are indexed from 0 as in the .mini version, shifted by one for Lua:
-- slot i of an array is element i + 1 of its table.
function Queens:queens()
  local freeRows, freeMaxs, freeMins, queenRows = {}, {}, {}, {}
  for i = 1, 8 do freeRows[i] = true end
  for i = 1, 16 do freeMaxs[i] = true end
  for i = 1, 16 do freeMins[i] = true end
  for i = 1, 8 do queenRows[i] = -1 end
  self.freeRows = freeRows
  self.freeMaxs = freeMaxs
  self.freeMins = freeMins
  self.queenRows = queenRows
  return self:placeQueen(0)
end

function Queens:placeQueen(c)
  for r = 0, 7 do
    if self:getRowColumn(r, c) then
      self.queenRows[r + 1] = c
      self:setRowColumn(r, c, false)
      if c == 7 then return true end
      if self:placeQueen(c + 1) then return true end
      self:setRowColumn(r, c, true)
    end
  end
  return false
end

function Queens:getRowColumn(r, c)
  return self.freeRows[r + 1] and self.freeMaxs[c + r + 1] and self.freeMins[c - r + 7 + 1]
end

function Queens:setRowColumn(r, c, v)
  self.freeRows[r + 1] = v
  self.freeMaxs[c + r + 1] = v
  self.freeMins[c - r + 7 + 1] = v
end

function Queens:verifyResult(result)
  return result
end

local bench = Queens.new()
awfy.runObject("Queens", bench, awfy.innerIterations(100), false)
