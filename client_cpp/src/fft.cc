// numpy.fft: one Fft request, pipelined like any op giving one array.
#include "arrayhub/client.h"
#include "convert.h"
#include "pipeline.h"

namespace arrayhub::client {

Array Client::Fft(std::string_view op, const Array& a, const FftOptions& options) {
  return Issue({&a}, {[&] {
                 v1::BatchRequest::Op batch_op;
                 v1::FftRequest& request = *batch_op.mutable_fft();
                 request.set_op(std::string(op));
                 detail::ToProto(Operand(a), request.mutable_input());
                 if (options.axes) {
                   request.mutable_axes()->mutable_axes()->Add(options.axes->begin(),
                                                               options.axes->end());
                 }
                 if (options.s) {
                   request.mutable_s()->mutable_values()->Add(options.s->begin(), options.s->end());
                 }
                 request.set_norm(options.norm);
                 return batch_op;
               }});
}

}  // namespace arrayhub::client
