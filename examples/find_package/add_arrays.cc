// add_arrays ADDRESS: uploads two arrays, adds them on the daemon and downloads the sum and its
// total. Prints "[11 22 33 44]" and exits 0 when both are right.
#include <arrayhub/arrayhub.h>

#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: add_arrays ADDRESS\n";
    return 2;
  }
  try {
    auto client = arrayhub::client::Client::Connect(argv[1]);
    auto a = client.Upload(std::vector<double>{1, 2, 3, 4}, {4});
    auto b = client.Upload(std::vector<double>{10, 20, 30, 40}, {4});
    auto c = a + b;                         // Queued: returns at once.
    auto total = arrayhub::client::sum(c);  // Queued after it.
    std::vector<double> sum = client.Download<double>(c);
    std::cout << "[" << sum[0] << " " << sum[1] << " " << sum[2] << " " << sum[3] << "]\n";
    return sum == std::vector<double>{11, 22, 33, 44} && client.Download<double>(total)[0] == 110
               ? 0
               : 1;
  } catch (const arrayhub::client::Error& error) {
    std::cerr << "add_arrays: " << error.what() << "\n";
    return 1;
  }
}
