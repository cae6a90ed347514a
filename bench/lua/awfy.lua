-- Shared pieces of the Lua 5.4 twins of the Are We Fast Yet benchmarks
-- (bench/programs/awfy/*.mini; the suite is Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license): the Lua counterpart
-- of bench/python/awfy.py.
--
-- The twins run as `lua5.4 bench/lua/<name>.lua [INNER_ITERATIONS]`, from any
-- folder. Lua does not search a script's own folder, so each twin's first line
-- puts that folder (taken from arg[0]) in front of package.path, then
-- `local awfy = require('awfy')` loads this file from beside it.

local awfy = {}

-- The suite's som.Random: a 16-bit linear congruential generator.
local Random = {}
Random.__index = Random

function Random.new()
  return setmetatable({ seed = 74755 }, Random)
end

function Random:next()
  self.seed = ((self.seed * 1309) + 13849) & 65535
  return self.seed
end

awfy.Random = Random

-- A value as the .mini versions print it: booleans as true / false, integers
-- without a decimal point (Lua 5.4 keeps integers and floats apart).
function awfy.show(value)
  return tostring(value)
end

-- The one command-line argument, INNER_ITERATIONS, or the benchmark's default.
function awfy.innerIterations(default)
  return tonumber(arg and arg[1]) or default
end

-- The suite's inner benchmark loop: run benchmark() innerIterations times,
-- verify each result, then print the last result and whether all verified.
-- `result` is what is printed when innerIterations is 0 (default 0).
function awfy.run(name, benchmark, verifyResult, innerIterations, result)
  if result == nil then result = 0 end
  local verified = true
  for _ = 1, innerIterations do
    result = benchmark()
    if not verifyResult(result) then verified = false end
  end
  print(name .. ": " .. awfy.show(result))
  print("verified: " .. awfy.show(verified))
end

-- `run` for a benchmark object with `benchmark` and `verifyResult` methods, as
-- the suite's Benchmark class has.
function awfy.runObject(name, bench, innerIterations, result)
  awfy.run(name, function() return bench:benchmark() end,
    function(r) return bench:verifyResult(r) end, innerIterations, result)
end

return awfy
