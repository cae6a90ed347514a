-- Lua twin of bench/programs/awfy/nbody.mini (same algorithm, same output).
-- NBody from the Are We Fast Yet benchmark suite (Stefan Marr et al.,
-- https://github.com/smarr/are-we-fast-yet, MIT license), written from the
-- suite's algorithm. Usage: lua nbody.lua [INNER_ITERATIONS]   (default 20000)

package.path = (arg and arg[0] and arg[0]:match('^(.*[/\\])') or './') .. '?.lua;' .. package.path
local awfy = require('awfy')

local PI = 3.141592653589793
local SOLAR_MASS = 4.0 * PI * PI
local DAYS_PER_YEAR = 365.24

-- mini's float format: the shortest text that reads back to the same number.
local function fmt(x)
  for precision = 1, 17 do
    local s = string.format("%." .. precision .. "g", x)
    if tonumber(s) == x then return s end
  end
  return string.format("%.17g", x)
end

local Body = {}
Body.__index = Body

function Body.new(x, y, z, vx, vy, vz, mass)
  return setmetatable({
    x = x, y = y, z = z,
    vx = vx * DAYS_PER_YEAR, vy = vy * DAYS_PER_YEAR, vz = vz * DAYS_PER_YEAR,
    mass = mass * SOLAR_MASS,
  }, Body)
end

function Body:offsetMomentum(px, py, pz)
  self.vx = 0.0 - (px / SOLAR_MASS)
  self.vy = 0.0 - (py / SOLAR_MASS)
  self.vz = 0.0 - (pz / SOLAR_MASS)
end

local function jupiter()
  return Body.new(4.84143144246472090, -1.16032004402742839, -0.103622044471123109,
    0.00166007664274403694, 0.00769901118419740425, -0.0000690460016972063023,
    0.000954791938424326609)
end

local function saturn()
  return Body.new(8.34336671824457987, 4.12479856412430479, -0.403523417114321381,
    -0.00276742510726862411, 0.00499852801234917238, 0.0000230417297573763929,
    0.000285885980666130812)
end

local function uranus()
  return Body.new(12.8943695621391310, -15.1111514016986312, -0.223307578892655734,
    0.00296460137564761618, 0.00237847173959480950, -0.0000296589568540237556,
    0.0000436624404335156298)
end

local function neptune()
  return Body.new(15.3796971148509165, -25.9193146099879641, 0.179258772950371181,
    0.00268067772490389322, 0.00162824170038242295, -0.0000951592254519715870,
    0.0000515138902046611451)
end

local function sun()
  return Body.new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
end

local function createBodies()
  local bodies = { sun(), jupiter(), saturn(), uranus(), neptune() }
  local px, py, pz = 0.0, 0.0, 0.0
  for i = 1, #bodies do
    local b = bodies[i]
    px = px + b.vx * b.mass
    py = py + b.vy * b.mass
    pz = pz + b.vz * b.mass
  end
  bodies[1]:offsetMomentum(px, py, pz)
  return bodies
end

local function advance(bodies, dt)
  local n = #bodies
  for i = 1, n do
    local iBody = bodies[i]
    for j = i + 1, n do
      local jBody = bodies[j]
      local dx = iBody.x - jBody.x
      local dy = iBody.y - jBody.y
      local dz = iBody.z - jBody.z
      local dSquared = dx * dx + dy * dy + dz * dz
      local distance = math.sqrt(dSquared)
      local mag = dt / (dSquared * distance)
      iBody.vx = iBody.vx - (dx * jBody.mass * mag)
      iBody.vy = iBody.vy - (dy * jBody.mass * mag)
      iBody.vz = iBody.vz - (dz * jBody.mass * mag)
      jBody.vx = jBody.vx + (dx * iBody.mass * mag)
      jBody.vy = jBody.vy + (dy * iBody.mass * mag)
      jBody.vz = jBody.vz + (dz * iBody.mass * mag)
    end
  end
  for i = 1, n do
    local body = bodies[i]
    body.x = body.x + dt * body.vx
    body.y = body.y + dt * body.vy
    body.z = body.z + dt * body.vz
  end
end

local function energy(bodies)
  local e = 0.0
  local n = #bodies
  for i = 1, n do
    local iBody = bodies[i]
    e = e + 0.5 * iBody.mass
      * (iBody.vx * iBody.vx + iBody.vy * iBody.vy + iBody.vz * iBody.vz)
    for j = i + 1, n do
      local jBody = bodies[j]
      local dx = iBody.x - jBody.x
      local dy = iBody.y - jBody.y
      local dz = iBody.z - jBody.z
      local distance = math.sqrt(dx * dx + dy * dy + dz * dz)
      e = e - (iBody.mass * jBody.mass) / distance
    end
  end
  return e
end

local function verifyResult(result, innerIterations)
  if innerIterations == 250000 then return result == -0.1690859889909308 end
  if innerIterations == 1 then return result == -0.16907495402506745 end
  if innerIterations == 20000 then return result == -0.16908926275526803 end
  print("No verification result for " .. innerIterations .. " found")
  print("Result is:")
  print(fmt(result))
  return false
end

local innerIterations = awfy.innerIterations(20000)
local bodies = createBodies()
for _ = 1, innerIterations do advance(bodies, 0.01) end
local e = energy(bodies)
print(fmt(e))
print("verified: " .. awfy.show(verifyResult(e, innerIterations)))
