-- Lua twin of bench/programs/awfy/mandelbrot.mini (same algorithm, same output).
-- Mandelbrot from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm. The inner iteration count is the image size.
-- Usage: lua mandelbrot.lua [INNER_ITERATIONS]   (default 500)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

-- The .mini ints are 32-bit: wrap as the Python twin does (Lua ints are 64-bit).
local function wrap32(x)
  return ((x + 0x80000000) & 0xFFFFFFFF) - 0x80000000
end

local function mandelbrot(size)
  local sum = 0
  local byteAcc = 0
  local bitNum = 0
  local y = 0
  while y < size do
    local ci = (2.0 * y / size) - 1.0
    local x = 0
    while x < size do
      local zr = 0.0
      local zrzr = 0.0
      local zi = 0.0
      local zizi = 0.0
      local cr = (2.0 * x / size) - 1.5
      local z = 0
      local notDone = true
      local escape = 0
      while notDone and z < 50 do
        zr = zrzr - zizi + cr
        zi = 2.0 * zr * zi + ci
        zrzr = zr * zr
        zizi = zi * zi
        if zrzr + zizi > 4.0 then
          notDone = false
          escape = 1
        end
        z = z + 1
      end
      byteAcc = wrap32((byteAcc << 1) + escape)
      bitNum = bitNum + 1
      if bitNum == 8 then
        sum = sum ~ byteAcc
        byteAcc = 0
        bitNum = 0
      elseif x == size - 1 then
        byteAcc = wrap32(byteAcc << (8 - bitNum))
        sum = sum ~ byteAcc
        byteAcc = 0
        bitNum = 0
      end
      x = x + 1
    end
    y = y + 1
  end
  return sum
end

local function verifyResult(result, innerIterations)
  if innerIterations == 500 then return result == 191 end
  if innerIterations == 750 then return result == 50 end
  if innerIterations == 1 then return result == 128 end
  print("No verification result for " .. innerIterations .. " found")
  print("Result is: " .. result)
  return false
end

local innerIterations = awfy.innerIterations(500)
local result = mandelbrot(innerIterations)
print("Mandelbrot: " .. result)
local ok = verifyResult(result, innerIterations)
print("verified: " .. awfy.show(ok))
