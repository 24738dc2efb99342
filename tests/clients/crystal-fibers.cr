# client_crystal's program: binary trees built and checked in 64 fibers
# that yield to each other in the middle of their work (so collections
# find many fiber stacks holding live trees, which Crystal pushes through
# GC_set_push_other_roots and GC_push_all_eager), a hash of arrays, strings
# and finalized objects; prints checksums only.
class Node
  getter left : Node?
  getter right : Node?
  getter v : Int32

  def initialize(@v, @left = nil, @right = nil)
  end
end

def make(d : Int32, v : Int32) : Node
  d == 0 ? Node.new(v) : Node.new(v, make(d - 1, 2 * v), make(d - 1, 2 * v + 1))
end

def check(n : Node?) : Int64
  n ? n.v.to_i64 + check(n.left) + check(n.right) : 0_i64
end

class Counted
  @@finalized = 0
  def self.finalized; @@finalized; end
  def finalize; @@finalized += 1; end
end

long_lived = make(16, 1)
results = Channel(Int64).new
64.times do |k|
  spawn do
    acc = 0_i64
    30.times do |round|
      t = make(8 + (k + round) % 4, k + 1)
      Fiber.yield
      acc += check(t)
    end
    results.send(acc)
  end
end
fiber_sum = 0_i64
64.times { fiber_sum += results.receive }

table = Hash(String, Array(Int32)).new
100_000.times { |i| table["key-#{i % 7000}"] = Array.new(i % 41) { |j| j ^ i } }
table_sum = table.values.sum { |a| a.sum(0_i64) { |x| x.to_i64 } }

words = (1..50_000).map { |i| "w#{i * 7919 % 100_003}" }
joined = words.join(",").size

200_000.times { Counted.new }
GC.collect

puts "long-lived tree: #{check(long_lived)}"
puts "fibers: #{fiber_sum}"
puts "table: #{table.size} #{table_sum}"
puts "strings: #{joined}"
puts "finalized some: #{Counted.finalized > 0}"
