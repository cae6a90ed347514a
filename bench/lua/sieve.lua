-- Lua twin of bench/programs/awfy/sieve.mini (same algorithm, same output).
-- Sieve from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm: the sieve of Eratosthenes over 5,000 flags.
-- Usage: lua sieve.lua [INNER_ITERATIONS]   (default 300)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

-- flags[i] is the .mini version's flags[i - 1] (Lua tables count from 1).
local function sieve(flags, size)
  local primeCount = 0
  for i = 2, size do
    if flags[i] then
      primeCount = primeCount + 1
      local k = i + i
      while k <= size do
        flags[k] = false
        k = k + i
      end
    end
  end
  return primeCount
end

local function benchmark()
  local flags = {}
  for i = 1, 5000 do flags[i] = true end
  return sieve(flags, 5000)
end

local function verifyResult(result)
  return result == 669
end

awfy.run("Sieve", benchmark, verifyResult, awfy.innerIterations(300))
